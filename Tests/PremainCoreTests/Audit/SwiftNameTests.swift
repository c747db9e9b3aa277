import PremainModel
import Testing

/// Readable forms of demangled Swift names, on names recorded from swift-package (Swift 6.3)
/// and the swift-argument-parser `math` example, and on hostile ones.
@Suite struct SwiftNameTests {
    static let fixIt =
        "default argument 2 of SwiftFixIt.SwiftFixIt.init<A where A: Swift.Collection, A.Element == Basics.AbsolutePath>(diagnosticFiles: A, categories: Swift.Set<Swift.String>, excludedSourceDirectories: Swift.Set<Basics.AbsolutePath>, fileSystem: TSCBasic.FileSystem) throws -> SwiftFixIt.SwiftFixIt"

    @Test func defaultArgumentIsNamedByParameterAndFunction() {
        #expect(
            SwiftName.readable(Self.fixIt)
                == "`excludedSourceDirectories` of SwiftFixIt.SwiftFixIt.init(diagnosticFiles:categories:excludedSourceDirectories:fileSystem:)"
        )
    }
}

@Suite struct SwiftNameFormsTests {
    @Test func lazyGlobalsReadAsTheirVariable() {
        #expect(
            SwiftName.readable("one-time initialization function for math.Math.Statistics.configuration")
                == "math.Math.Statistics.configuration")
    }

    @Test func unlabeledAndGenericParameters() {
        let generic =
            "default argument 1 of math.generic<A where A: Swift.Hashable>(_: A, seen: Swift.Set<A>) -> Swift.Bool"
        #expect(SwiftName.readable(generic) == "`seen` of math.generic(_:seen:)")
        let unlabeled = "default argument 0 of math.f(_: Swift.Int, x: (Swift.Int, Swift.String) -> ()) -> ()"
        #expect(SwiftName.readable(unlabeled) == "argument 0 of math.f(_:x:)")
        let saveValue =
            "default argument 1 of ArgumentParser.SingleValueDecoder.saveValue<A where A: Swift.Decodable>(_: A, type: A.Type) -> ()"
        #expect(SwiftName.readable(saveValue) == "`type` of ArgumentParser.SingleValueDecoder.saveValue(_:type:)")
    }

    @Test func shorterFormsKeepModuleTypesBaseNameAndLabels() {
        let name = "Basics.AsyncProcess.(sharedCompletionQueue in _A45A6F5257E83D83B8CB0B37231C56C2)"
        #expect(SwiftName.shorterForms(name).last == "Basics.AsyncProcess.sharedCompletionQueue")
        let forms = SwiftName.shorterForms(SwiftNameTests.fixIt)
        #expect(forms.first == SwiftNameTests.fixIt)
        #expect(
            forms.last
                == "default argument 2 of SwiftFixIt.SwiftFixIt.init(diagnosticFiles:categories:excludedSourceDirectories:fileSystem:)"
        )
        // Every form is shorter than the one before, and none cuts the base name.
        #expect(zip(forms, forms.dropFirst()).allSatisfy { $0.count > $1.count })
        #expect(forms.allSatisfy { $0.contains("SwiftFixIt.SwiftFixIt.init") })
    }

    @Test func hostileNamesNeverTrapAndComeBackWhole() {
        let unbalanced = "f((((<<<" + String(repeating: "a", count: 20_000) + "-> ) ] >"
        #expect(SwiftName.signature(unbalanced) == nil)
        #expect(SwiftName.shorterForms(unbalanced).allSatisfy { !$0.isEmpty })
        for hostile in [
            "(", ")", "<>", "->", "default argument ", "default argument x of ", "default argument 9 of f()",
            "default argument 99999999999999999999 of f(a: B)", "(x in _ZZ)", "\u{1b}[31m(y in _AB)\u{7}",
            String(repeating: "(x in _0)", count: 2_000),
        ] {
            _ = SwiftName.readable(hostile)
            _ = SwiftName.shorterForms(hostile)
        }
        #expect(SwiftName.readable("default argument 9 of f()") == "argument 9 of f()")
    }
}
