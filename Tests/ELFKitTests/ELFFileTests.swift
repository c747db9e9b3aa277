import ELFKit
import ELFValues
import Testing

@Suite struct ELFFileTests {
    @Test func readsARealExecutable() throws {
        let file = try ELFFile(path: "/usr/bin/ls")
        #expect(file.elfClass == .elf64)
        #expect(file.endianness == .little)
        #expect(file.machine == .x86_64)
        #expect(file.objectKind == .pieExecutable)
        #expect(file.interpreter == "/lib64/ld-linux-x86-64.so.2")
        #expect(file.neededLibraries.contains("libc.so.6"))
        #expect(file.buildID?.count == 40)
        #expect(file.diagnostics.isEmpty)
        #expect(!file.dynamicRelocationTables.isEmpty)
    }

    @Test func readsASharedLibrary() throws {
        let file = try ELFFile(path: "/usr/lib/x86_64-linux-gnu/libm.so.6")
        #expect(file.objectKind == .sharedLibrary)
        #expect(file.soname == "libm.so.6")
        #expect(file.interpreter == nil)
        let versions = try #require(file.symbolVersions)
        #expect(versions.defined.contains("GLIBC_2.2.5"))
        #expect(versions.required["libc.so.6"]?.isEmpty == false)
        let symbols = try #require(file.dynamicSymbols)
        var sawCos = false
        symbols.forEach { symbol in
            if symbols.name(of: symbol) == "cos" {
                sawCos = symbol.isDefined && symbol.kind == .function || symbol.kind == .gnuIFunc
                return false
            }
            return true
        }
        #expect(sawCos)
    }

    @Test func rejectsWhatIsNotELF() {
        for (path, reason) in [
            ("/etc/hostname", ELFOpenFailure.notELF), ("/nonexistent/x", .missing),
            ("/usr", .notRegularFile),
        ] {
            do {
                _ = try ELFFile(path: path)
                Issue.record("\(path) opened")
            } catch {
                #expect(error.reason == reason, "\(path)")
            }
        }
    }
}
