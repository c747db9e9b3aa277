/// What the loader's work costs on one machine, fitted from measured objects: nanoseconds per
/// mapped object (search, open, map), per relative relocation and per symbol relocation (a
/// look-up, or the one-entry cache). `audit --estimate` turns an object's counts into an
/// estimate without running anything. Written as JSON with `kind` "loader-cost-model".
public struct LoaderCostModel: Codable, Equatable, Sendable, KindedReport {
    public static let kind = ReportKind.loaderCostModel
    public var kind = ReportKindField<LoaderCostModel>()
    public var schemaVersion = 1
    public var nsPerObject: Double
    public var nsPerRelativeRelocation: Double
    public var nsPerSymbolRelocation: Double
    /// Objects and programs (measurements) the model was fitted on.
    public var objects: Int
    public var programs: Int
    /// Leave-one-program-out error of each program's estimated loader work (loading and
    /// relocation of all its objects) against its measured medians: median and largest, in %.
    /// `nil` with fewer than three programs.
    public var heldOutMedianErrorPercent: Double?
    public var heldOutMaxErrorPercent: Double?
    /// The machine it was measured on (CPU model, and the date of the first measurement).
    public var machine: String
    public var date: String

    enum CodingKeys: String, CodingKey {
        case kind, schemaVersion, nsPerObject, nsPerRelativeRelocation, nsPerSymbolRelocation, objects, programs
        case heldOutMedianErrorPercent, heldOutMaxErrorPercent, machine, date
    }

    public init(
        nsPerObject: Double, nsPerRelativeRelocation: Double, nsPerSymbolRelocation: Double, objects: Int,
        programs: Int, heldOutMedianErrorPercent: Double? = nil, heldOutMaxErrorPercent: Double? = nil,
        machine: String, date: String
    ) {
        self.nsPerObject = nsPerObject
        self.nsPerRelativeRelocation = nsPerRelativeRelocation
        self.nsPerSymbolRelocation = nsPerSymbolRelocation
        self.objects = objects
        self.programs = programs
        self.heldOutMedianErrorPercent = heldOutMedianErrorPercent
        self.heldOutMaxErrorPercent = heldOutMaxErrorPercent
        self.machine = machine
        self.date = date
    }

    /// The versions of the model file this premain reads.
    public static let readableVersions = 1...1

    /// Reads a model file, every number range-checked (`CheckedDecoding`): a coefficient is
    /// from 0 to 100 ms per object and 1 ms per relocation (a fitted model is never negative),
    /// counts from 1, errors from 0 %; an unknown `schemaVersion` is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kind = try container.decode(ReportKindField<LoaderCostModel>.self, forKey: .kind)
        schemaVersion = try container.decodeChecked(
            .schemaVersion, in: Self.readableVersions.lowerBound...Self.readableVersions.upperBound)
        nsPerObject = try container.decodeChecked(.nsPerObject, in: 0...1e8)
        nsPerRelativeRelocation = try container.decodeChecked(.nsPerRelativeRelocation, in: 0...1e6)
        nsPerSymbolRelocation = try container.decodeChecked(.nsPerSymbolRelocation, in: 0...1e6)
        objects = try container.decodeChecked(.objects, in: 1...100_000_000)
        programs = try container.decodeChecked(.programs, in: 1...objects)
        heldOutMedianErrorPercent = try container.decodeCheckedIfPresent(.heldOutMedianErrorPercent, in: 0...1e6)
        heldOutMaxErrorPercent = try container.decodeCheckedIfPresent(.heldOutMaxErrorPercent, in: 0...1e6)
        machine = try container.decode(String.self, forKey: .machine)
        date = try container.decode(String.self, forKey: .date)
    }

    /// One object's counts as the model reads them.
    public struct Input: Equatable, Sendable {
        /// Mapped by the loader (a library); false for the executable and the loader itself.
        public var mapped: Bool
        public var relative: Int
        /// Symbol relocations done at start: symbolic, and PLT slots when bound now.
        public var symbolic: Int

        public init(mapped: Bool, relative: Int, symbolic: Int) {
            self.mapped = mapped
            self.relative = relative
            self.symbolic = symbolic
        }

        public init(mapped: Bool, facts: ObjectStaticFacts) {
            self.init(
                mapped: mapped, relative: facts.relative,
                symbolic: facts.symbolic + facts.other + (facts.bindNow ? facts.plt : 0))
        }

        var features: [Double] { [mapped ? 1 : 0, Double(relative), Double(symbolic)] }
    }

    /// The estimate for one object, in milliseconds.
    public func estimateMs(_ input: Input) -> Double {
        let f = input.features
        return (f[0] * nsPerObject + f[1] * nsPerRelativeRelocation + f[2] * nsPerSymbolRelocation) / 1e6
    }

    /// Fits the model on every measured object with audit counts (`ObjectMeasurement.facts`):
    /// least squares with no negative coefficient (a coefficient that would be negative is held
    /// at 0 and the rest refitted). `nil` when fewer than three objects have loader times.
    public static func fit(_ measurements: [LaunchMeasurement]) -> LoaderCostModel? {
        let programs = measurements.map(samples)
        let all = programs.flatMap { $0 }
        guard all.count >= 3, let coefficients = solve(all) else { return nil }
        var model = LoaderCostModel(
            nsPerObject: coefficients[0], nsPerRelativeRelocation: coefficients[1],
            nsPerSymbolRelocation: coefficients[2],
            objects: all.count, programs: measurements.count,
            machine: measurements.first?.conditions.cpuModel ?? "unknown CPU",
            date: measurements.first?.conditions.date ?? "")
        let usable = programs.indices.filter { !programs[$0].isEmpty }
        if usable.count >= 3 {
            var errors: [Double] = []
            for held in usable {
                let rest = usable.filter { $0 != held }.flatMap { programs[$0] }
                guard let c = solve(rest) else { continue }
                let measured = programs[held].reduce(0) { $0 + $1.ms }
                let estimated = programs[held].reduce(0) { sum, sample in
                    sum + zip(sample.input.features, c).reduce(0) { $0 + $1.0 * $1.1 } / 1e6
                }
                if measured > 0 { errors.append(abs(estimated - measured) / measured * 100) }
            }
            model.heldOutMedianErrorPercent = SampleStatistics.median(errors)
            model.heldOutMaxErrorPercent = errors.max()
        }
        return model
    }

    struct Sample {
        var input: Input
        /// Measured loading + relocation (medians), ms.
        var ms: Double
    }

    static func samples(_ measurement: LaunchMeasurement) -> [Sample] {
        measurement.objects.compactMap { object in
            guard let facts = object.facts, object.mapping != nil || object.relocation != nil else { return nil }
            let mapped = object.role == .library
            return Sample(
                input: Input(mapped: mapped, facts: facts),
                ms: (object.mapping?.medianMs ?? 0) + (object.relocation?.medianMs ?? 0))
        }
    }

    /// Non-negative least squares over the three features, in ns: the normal equations solved
    /// on the features not held at 0.
    static func solve(_ samples: [Sample]) -> [Double]? {
        var active = [true, true, true]
        for _ in 0..<3 {
            let indices = active.indices.filter { active[$0] }
            guard !indices.isEmpty else { return [0, 0, 0] }
            var a = [[Double]](repeating: [Double](repeating: 0, count: indices.count), count: indices.count)
            var b = [Double](repeating: 0, count: indices.count)
            for sample in samples {
                let f = sample.input.features
                let y = sample.ms * 1e6
                for (i, fi) in indices.enumerated() {
                    b[i] += f[fi] * y
                    for (j, fj) in indices.enumerated() { a[i][j] += f[fi] * f[fj] }
                }
            }
            guard let x = gaussian(a, b) else {
                // A feature no sample has (all zero): hold the one with the smallest diagonal at 0.
                guard
                    let weakest = indices.min(by: {
                        a[indices.firstIndex(of: $0)!][indices.firstIndex(of: $0)!]
                            < a[indices.firstIndex(of: $1)!][indices.firstIndex(of: $1)!]
                    })
                else { return nil }
                active[weakest] = false
                continue
            }
            var full = [0.0, 0.0, 0.0]
            for (i, index) in indices.enumerated() { full[index] = x[i] }
            if let negative = indices.first(where: { full[$0] < 0 }) {
                active[negative] = false
                continue
            }
            return full
        }
        return nil
    }

    /// Solves `a x = b` by Gaussian elimination with partial pivoting; `nil` when singular.
    static func gaussian(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = a
        var v = b
        let n = v.count
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }),
                abs(m[pivot][column]) > 1e-12
            else { return nil }
            m.swapAt(column, pivot)
            v.swapAt(column, pivot)
            for row in (column + 1)..<n {
                let factor = m[row][column] / m[column][column]
                for k in column..<n { m[row][k] -= factor * m[column][k] }
                v[row] -= factor * v[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = v[row]
            for k in (row + 1)..<n { sum -= m[row][k] * x[k] }
            x[row] = sum / m[row][row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }
}

/// `audit --estimate`: a program's loader work on the model's machine, from its closure's counts.
public struct LoaderEstimate: Equatable, Sendable {
    /// Loading and relocation of the program and every object of its closure, in ms.
    public var ms: Double
    /// Objects counted (the program included).
    public var objects: Int
    /// Objects of the closure without counts (not read), left out of `ms`.
    public var uncounted: Int
}

extension LoaderCostModel {
    /// The estimate for `binary` and its resolved closure; `nil` without a closure.
    public func estimate(_ binary: BinaryInventory) -> LoaderEstimate? {
        guard let closure = binary.closure else { return nil }
        func input(_ census: RelocationCensus, bindNow: Bool, mapped: Bool) -> Input {
            Input(
                mapped: mapped,
                facts: ObjectStaticFacts(census: census, bindNow: bindNow, importedSymbols: 0, fileSize: 0))
        }
        var ms = estimateMs(input(binary.relocations, bindNow: binary.dynamic.bindNow, mapped: false))
        var objects = 1
        var uncounted = 0
        for object in closure.objects {
            guard let cost = object.cost else {
                uncounted += 1
                continue
            }
            // The kernel maps the loader with the program; the loader maps every other object.
            ms += estimateMs(
                input(cost.relocations, bindNow: cost.bindNow, mapped: !ObjectName.isDynamicLoader(object.path)))
            objects += 1
        }
        return LoaderEstimate(ms: ms, objects: objects, uncounted: uncounted)
    }

    /// "≈ 6.1 ms of loading and relocation on this machine (model from 210 objects of 12
    /// programs, held-out error ±18 % median, 40 % max)".
    /// `thisMachine` is false when the model was fitted on another CPU than the one premain
    /// runs on: the estimate is then said to be for the model's machine.
    public func sentence(_ estimate: LoaderEstimate, thisMachine: Bool = true) -> String {
        var text =
            "≈ \(Milliseconds.number(estimate.ms, decimals: 2)) ms of loading and relocation for \(estimate.objects) objects "
            + (thisMachine ? "on this machine " : "on the model's machine, not this one ")
        text += "(model from \(objects) objects of \(programs) programs on \(machine)"
        if let median = heldOutMedianErrorPercent, let max = heldOutMaxErrorPercent {
            text +=
                ", held-out error ±\(Milliseconds.number(median, decimals: 0)) % median, \(Milliseconds.number(max, decimals: 0)) % max"
        } else {
            text += ", no held-out error: fewer than 3 programs"
        }
        text += ")"
        if estimate.uncounted > 0 { text += "; \(estimate.uncounted) objects not read are left out" }
        return text
    }
}
