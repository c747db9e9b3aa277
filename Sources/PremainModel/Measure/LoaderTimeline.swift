/// What glibc's loader reported about one launch (`LD_DEBUG=files,statistics`), each time in
/// milliseconds since process birth, stamped when the line reached the measuring process.
public struct LoaderTimeline: Codable, Equatable, Sendable {
    /// One object the loader mapped (`file=NAME [0];  generating link map`).
    public struct MappedObject: Codable, Equatable, Sendable {
        /// The name as the loader printed it: the DT_NEEDED string or a path.
        public var name: String
        /// Who needed it (a path, or the executable as started), or `nil` when not printed.
        public var neededBy: String?
        /// When the mapping was done (the `dynamic:` line after `generating link map`).
        /// `nil` when the launch ended before that line.
        public var mappedMs: Double?

        public init(name: String, neededBy: String?, mappedMs: Double?) {
            self.name = name
            self.neededBy = neededBy
            self.mappedMs = mappedMs
        }
    }

    /// One object's initializers (`calling init: PATH`), or the executable's own
    /// (`initialize program: ARGV0`).
    public struct InitializerCall: Codable, Equatable, Sendable {
        public var path: String
        /// Start: the loader's line just before it called the first initializer.
        public var startMs: Double
        /// Until the next `calling init`, `initialize program` or `transferring control` line.
        /// `nil` when the launch ended before the next line (for example a crash in it).
        public var durationMs: Double?
        /// True for the executable's own initializers.
        public var isProgram: Bool

        public init(path: String, startMs: Double, durationMs: Double?, isProgram: Bool) {
            self.path = path
            self.startMs = startMs
            self.durationMs = durationMs
            self.isProgram = isProgram
        }
    }

    /// The first line from the loader: it has relocated itself and opened its debug output.
    public var loaderStartMs: Double
    public var objects: [MappedObject] = []
    /// The first initializer call line: mapping and relocation are finished. `nil` when no
    /// initializer was ever announced (the loader failed first).
    public var loaderDoneMs: Double?
    /// In call order, the executable's own last.
    public var initializers: [InitializerCall] = []
    /// `transferring control: …`, printed just before main is called. `nil` when never reached.
    public var mainMs: Double?
    /// Counts printed when relocation was done (`runtime linker statistics`).
    public var startupCounts: LoaderCounts?
    /// Counts printed at exit (`final number of …`), which include lazy binding during main.
    public var finalCounts: LoaderCounts?

    public init(loaderStartMs: Double) {
        self.loaderStartMs = loaderStartMs
    }
}
