import PremainAudit
import PremainModel

/// What the dependency closure of one program says, as rules need it: the objects `ld.so`
/// maps, how deep each sits, what is missing and what is needed but unused.
public struct ClosureFacts: Codable, Sendable, Equatable {
    /// The program's name (soname or file name).
    public var program: String
    public var objects: [Object]
    public var missing: [Missing]
    /// The program's own `DT_NEEDED` entries that provide none of its imports.
    public var unusedNeeded: [String]

    public struct Object: Codable, Sendable, Equatable {
        public var path: String
        public var soname: String?
        /// 1 for the program's own `DT_NEEDED`, 2 for theirs, ...
        public var depth: Int
        /// Path or name of the object that needed it first.
        public var neededBy: String
        /// Its own `DT_NEEDED` entries that provide none of its imports.
        public var unusedNeeded: [String]
        /// Under the system library folders.
        public var system: Bool

        public init(path: String, soname: String?, depth: Int, neededBy: String, unusedNeeded: [String] = [],
                    system: Bool = false) {
            self.path = path
            self.soname = soname
            self.depth = depth
            self.neededBy = neededBy
            self.unusedNeeded = unusedNeeded
            self.system = system
        }

        public var name: String { soname ?? ObjectName.fileName(path) }
    }

    public struct Missing: Codable, Sendable, Equatable {
        public var name: String
        public var neededBy: String

        public init(name: String, neededBy: String) {
            self.name = name
            self.neededBy = neededBy
        }
    }

    public init(program: String, objects: [Object], missing: [Missing], unusedNeeded: [String]) {
        self.program = program
        self.objects = objects
        self.missing = missing
        self.unusedNeeded = unusedNeeded
    }

    /// The facts of a resolved closure (`ClosureResolver`).
    public init(_ closure: DependencyClosure, program: String) {
        self.init(program: program,
                  objects: closure.objects.map { object in
                      Object(path: object.path, soname: object.soname, depth: object.depth, neededBy: object.neededBy,
                             system: object.system)
                  },
                  missing: closure.missing.map { Missing(name: $0.name, neededBy: $0.neededBy) },
                  unusedNeeded: closure.unusedNeeded)
    }

    /// The chain of needing objects from the program to `object`, program first; just the
    /// object when a link is unknown.
    public func chain(to object: Object) -> [String] {
        var chain = [object.name]
        var current = object
        var seen: Set<String> = [object.path]
        while let parent = objects.first(where: { $0.path == current.neededBy || $0.name == current.neededBy }),
              !seen.contains(parent.path) {
            seen.insert(parent.path)
            chain.insert(parent.name, at: 0)
            current = parent
        }
        chain.insert(program, at: 0)
        return chain
    }
}
