/// What a traced function is, as shown in the hot list.
public enum TracedFunctionKind: String, Codable, Sendable, CaseIterable {
    /// A static initializer entry without a better name (toolchain code such as `_init` or
    /// `frame_dummy`, or an unnamed entry in a stripped file).
    case staticInitializer
    /// A GCC/Clang `_GLOBAL__sub_I_<file>` function: every global constructor of one file.
    case cxxTranslationUnitInitializer
    /// A named function in an initializer array: `__attribute__((constructor))` and the like.
    case constructorFunction
    /// A Swift global's one-time initializer (`…WZ`), run on first use.
    case swiftLazyGlobal
    /// A Swift default-argument generator (`…fA_`, `…fA0_`), run at call sites.
    case swiftDefaultArgument
    /// A function asked for with `--function`.
    case named

    /// The words used in text output.
    public var title: String {
        switch self {
        case .staticInitializer: return "static initializer"
        case .cxxTranslationUnitInitializer: return "C++ translation-unit initializer"
        case .constructorFunction: return "constructor function"
        case .swiftLazyGlobal: return "Swift lazy global"
        case .swiftDefaultArgument: return "Swift default argument"
        case .named: return "named"
        }
    }
}
