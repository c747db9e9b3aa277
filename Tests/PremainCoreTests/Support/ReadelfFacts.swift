import PremainTestSupport

/// The contract's facts about one file as GNU readelf reports them, for cross-checks: an
/// independent reader, parsed from `readelf -W -d -r --dyn-syms`.
struct ReadelfFacts: Equatable, CustomStringConvertible {
    var needed: [String] = []
    var relative = 0, symbolic = 0, plt = 0, copy = 0, irelative = 0, tls = 0
    var exported = 0, imported = 0
    var initArray = 0, preinitArray = 0
    var total: Int { relative + symbolic + plt + copy + irelative + tls }

    var description: String {
        "needed=\(needed) rel=\(relative) sym=\(symbolic) plt=\(plt) copy=\(copy) irel=\(irelative) tls=\(tls) "
            + "exp=\(exported) imp=\(imported) init=\(initArray) preinit=\(preinitArray)"
    }

    static func of(_ path: String) throws -> ReadelfFacts {
        let result = try Shell.run(["readelf", "-W", "-d", "-r", "--dyn-syms", path])
        var facts = ReadelfFacts()
        let wordSize = try wordSizeOf(path)
        var inDynsym = false
        for line in result.stdout.split(separator: "\n", omittingEmptySubsequences: false) {
            let tokens = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.hasPrefix("Symbol table '") {
                inDynsym = line.contains("'.dynsym'")
                continue
            }
            if line.hasPrefix("Relocation section") || line.hasPrefix("Dynamic section") { inDynsym = false }
            if line.contains("(NEEDED)"), let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") {
                facts.needed.append(String(line[line.index(after: open)..<close]))
            } else if line.contains("(INIT_ARRAYSZ)"), tokens.count >= 3, let bytes = Int(tokens[2]) {
                facts.initArray = bytes / wordSize
            } else if line.contains("(PREINIT_ARRAYSZ)"), tokens.count >= 3, let bytes = Int(tokens[2]) {
                facts.preinitArray = bytes / wordSize
            } else if tokens.count == 2, tokens[1] == "offsets", let count = Int(tokens[0]) {
                facts.relative += count  // RELR: readelf 2.40 prints "N offsets" before the list
            } else if tokens.count >= 3, tokens[2].hasPrefix("R_") {
                classify(String(tokens[2]), into: &facts)
            } else if inDynsym, tokens.count >= 8, tokens[0].hasSuffix(":"), tokens[0] != "0:" {
                let (type, bind, visibility, index) = (tokens[3], tokens[4], tokens[5], tokens[6])
                if index == "UND" {
                    facts.imported += 1
                } else if ["GLOBAL", "WEAK", "UNIQUE"].contains(bind), ["DEFAULT", "PROTECTED"].contains(visibility),
                    type != "SECTION", type != "FILE"
                {
                    facts.exported += 1
                }
            }
        }
        return facts
    }

    static func wordSizeOf(_ path: String) throws -> Int {
        let header = try Shell.run(["readelf", "-h", path]).stdout
        return header.contains("ELF32") ? 4 : 8
    }

    static func classify(_ type: String, into facts: inout ReadelfFacts) {
        if type.hasSuffix("_NONE") { return }
        if type.contains("IRELATIV") {
            facts.irelative += 1
        } else if type.contains("RELATIVE") {
            facts.relative += 1
        } else if type.contains("JUMP_SLOT") || type.contains("JMP_SLOT") {
            facts.plt += 1
        } else if type.hasSuffix("_COPY") {
            facts.copy += 1
        } else if ["DTPMOD", "DTPOFF", "TPOFF", "TLSDESC", "TLS_", "DTPREL", "TPREL"].contains(where: type.contains) {
            facts.tls += 1
        } else {
            facts.symbolic += 1
        }
    }
}
