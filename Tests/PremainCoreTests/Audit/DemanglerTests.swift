import PremainAudit
import Testing

/// Lazy globals' once-functions named by their variable's full path, on manglings recorded
/// from swiftc 6.3 (a test module `math`) and swift-package.
@Suite struct DemanglerTests {
    @Test(arguments: [
        (
            "$s4math4MathV10StatisticsV13configuration_WZ",
            "one-time initialization function for math.Math.Statistics.configuration"
        ),
        ("$s4math11globalThing_WZ", "one-time initialization function for math.globalThing"),
        ("$s4math11globalThing_Wz", "one-time initialization token for math.globalThing"),
        ("$s4math5pairA_0B1B_WZ", "one-time initialization function for math.(pairA, pairB)"),
        (
            "$s4math6hidden33_A37F5EBE25000D9DD827E3D67D7E45E1LL_WZ",
            "one-time initialization function for math.(hidden in _A37F5EBE25000D9DD827E3D67D7E45E1)"
        ),
        (
            "$s10Foundation6BundleC14SWBQNXPlatformE6module_WZ",
            "one-time initialization function for (extension in SWBQNXPlatform):Foundation.Bundle.module"
        ),
    ])
    func onceFunctionsKeepTheirContext(mangled: String, expected: String) {
        #expect(Demangler.demangle(mangled) == expected)
    }

    @Test func otherSwiftNamesAreSwiftsOwn() {
        #expect(
            Demangler.demangle("$s4math4MathV10StatisticsV7average4kind6valuesSdSS_SaySdGtFfA0_")
                == "default argument 1 of math.Math.Statistics.average(kind: Swift.String, values: Swift.Array<Swift.Double>) -> Swift.Double"
        )
        #expect(Demangler.demangle("_Z3fooi") == "foo(int)")
    }

    @Test func hostileManglingsDoNotTrap() {
        for name in [
            "$s_WZ", "$sWZ", "$s4mat_WZ", "$s" + String(repeating: "9", count: 5_000) + "_WZ",
            "$s4math5(((A_0B1B_WZ", "$s4math5pairA_0B1B\u{0}_WZ",
            "$s" + String(repeating: "4math", count: 3_000) + "_WZ",
        ] {
            let text = Demangler.demangle(name)
            #expect(text?.isEmpty != true)
        }
    }
}
