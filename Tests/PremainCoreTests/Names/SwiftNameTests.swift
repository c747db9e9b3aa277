import PremainModel
import Testing

/// Readable forms of demangled Swift names, on names recorded from swift-package (Swift 6.3)
/// and the swift-argument-parser `math` example, and on hostile ones.
@Suite struct SwiftNameTests {
    static let fixIt = "default argument 2 of SwiftFixIt.SwiftFixIt.init<A where A: Swift.Collection, A.Element == Basics.AbsolutePath>(diagnosticFiles: A, categories: Swift.Set<Swift.String>, excludedSourceDirectories: Swift.Set<Basics.AbsolutePath>, fileSystem: TSCBasic.FileSystem) throws -> SwiftFixIt.SwiftFixIt"

    @Test func defaultArgumentIsNamedByParameterAndFunction() {
        #expect(SwiftName.readable(Self.fixIt)
            == "`excludedSourceDirectories` of SwiftFixIt.SwiftFixIt.init(diagnosticFiles:categories:excludedSourceDirectories:fileSystem:)")
    }
}
