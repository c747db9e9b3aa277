/// The line-number state machine (DWARF 5, 6.2.2 and 6.2.5), as libdw 0.188 runs it: its
/// registers wrap and truncate where libdw's C types do, and a row libdw would call invalid
/// (a column above 65535, `is_stmt` not 0 or 1, an ISA above 255, a discriminator of 2^24 or
/// more, a line outside 32 bits) refuses the unit.
extension LineProgram {
    private struct Registers {
        var address: UInt64 = 0
        var operationIndex: UInt32 = 0
        var file: UInt32 = 1
        var line: Int64 = 1
        var column: UInt32 = 0
        var isStmt: UInt8
        var isa: UInt32 = 0
        var discriminator: UInt32 = 0

        init(isStmt: UInt8) { self.isStmt = isStmt }

        /// libdw: addr += min_inst_length * ((op_index + advance) / max_ops), in 32-bit unsigned.
        mutating func advance(_ operations: UInt32, minimumLength: UInt8, maximumOperations: UInt8) {
            if maximumOperations == 1 {
                address &+= UInt64(UInt32(minimumLength) &* operations)
                return
            }
            let total = operationIndex &+ operations
            address &+= UInt64(UInt32(minimumLength) &* (total / UInt32(maximumOperations)))
            operationIndex = total % UInt32(maximumOperations)
        }
    }

    /// The rows made so far, or only their span and sequences.
    private struct Matrix {
        let collectRows: Bool
        var rows: [Row] = []
        var low = UInt64.max
        var high: UInt64 = 0
        var sequences: [Range<UInt64>] = []
        var sequenceStart: UInt64 = 0
        var inSequence = false
        var ended = true

        init(collectRows: Bool) { self.collectRows = collectRows }

        /// Adds a row of `state`; `false` when libdw would call it invalid.
        mutating func emit(_ state: Registers, endSequence: Bool) -> Bool {
            guard let line = Int32(exactly: state.line), state.column <= 0xffff, state.isStmt <= 1, state.isa <= 0xff,
                state.discriminator < 1 << 24
            else { return false }
            if !inSequence {
                sequenceStart = state.address
                inSequence = true
            }
            if collectRows {
                rows.append(
                    Row(
                        address: state.address, file: state.file, line: line, endSequence: endSequence,
                        sequenceStart: sequenceStart))
            }
            low = min(low, state.address)
            high = max(high, state.address)
            ended = endSequence
            if endSequence {
                sequences.append(sequenceStart..<max(state.address, sequenceStart))
                inSequence = false
            }
            return true
        }
    }

    /// Runs the program to the unit's end; `true` when its last row (if any) ends a sequence.
    // swiftlint:disable:next function_parameter_count function_body_length cyclomatic_complexity
    mutating func run(
        _ unitCursor: inout DWARFCursor, addressSize: Int, minimumLength: UInt8, maximumOperations: UInt8,
        defaultIsStmt: UInt8, lineBase: Int8, lineRange: UInt8, opcodeBase: UInt8,
        standardLengths: [UInt8], collectRows: Bool
    ) throws(Refusal) -> Bool {
        var cursor = unitCursor
        defer { unitCursor = cursor }
        func standardLength(_ opcode: UInt8) -> UInt8? {
            opcode >= 1 && Int(opcode) <= standardLengths.count ? standardLengths[Int(opcode) - 1] : nil
        }
        // libdw refuses a standard opcode whose standard_opcode_lengths entry is not its own.
        let expectedLengths: [UInt8] = [0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
        let lengthAsExpected = (0...Int(Self.lnsSetISA)).map {
            $0 > 0 && standardLength(UInt8($0)) == expectedLengths[$0]
        }
        let discriminatorLength = standardLength(Self.lneSetDiscriminator)
        var state = Registers(isStmt: defaultIsStmt)
        var matrix = Matrix(collectRows: collectRows)

        while let opcode = cursor.u8() {
            if opcode >= opcodeBase {
                guard lineRange != 0 else { throw Self.refusal(cursor, "line_range 0") }
                let adjusted = opcode - opcodeBase
                state.line &+= Int64(lineBase) + Int64(adjusted % lineRange)
                state.advance(
                    UInt32(adjusted / lineRange), minimumLength: minimumLength, maximumOperations: maximumOperations)
                guard matrix.emit(state, endSequence: false) else {
                    throw Self.refusal(cursor, "row out of libdw's range")
                }
                state.discriminator = 0
            } else if opcode == 0 {
                switch try Self.extended(
                    &cursor, addressSize: addressSize, opcodeBase: opcodeBase,
                    discriminatorLength: discriminatorLength)
                {
                case .endSequence:
                    guard matrix.emit(state, endSequence: true) else {
                        throw Self.refusal(cursor, "row out of libdw's range")
                    }
                    state = Registers(isStmt: defaultIsStmt)
                case .setAddress(let address):
                    state.address = address
                    state.operationIndex = 0
                case .setDiscriminator(let value):
                    state.discriminator = value
                case .ignored:
                    break
                }
            } else if opcode <= Self.lnsSetISA {
                guard lengthAsExpected[Int(opcode)] else {
                    throw Self.refusal(cursor, "standard opcode \(opcode) of unexpected length")
                }
                try Self.standard(
                    opcode, &state, &cursor, &matrix, minimumLength: minimumLength,
                    maximumOperations: maximumOperations, lineRange: lineRange, opcodeBase: opcodeBase)
            } else {
                // An opcode this reader does not know: skip its ULEB128 operands.
                for _ in 0..<(standardLength(opcode) ?? 0) {
                    guard cursor.uleb() != nil else { throw Self.refusal(cursor, "bad ULEB128") }
                }
            }
        }
        rows = matrix.rows
        low = matrix.low
        high = matrix.high
        sequences = matrix.sequences
        return matrix.ended
    }

    /// One standard opcode (`DW_LNS_copy` to `DW_LNS_set_isa`, its length checked by the
    /// caller) applied to the registers, a row emitted for `DW_LNS_copy`.
    // swiftlint:disable:next function_parameter_count
    private static func standard(
        _ opcode: UInt8, _ state: inout Registers, _ cursor: inout DWARFCursor, _ matrix: inout Matrix,
        minimumLength: UInt8, maximumOperations: UInt8, lineRange: UInt8, opcodeBase: UInt8
    ) throws(Refusal) {
        switch opcode {
        case Self.lnsCopy:
            guard matrix.emit(state, endSequence: false) else {
                throw Self.refusal(cursor, "row out of libdw's range")
            }
            state.discriminator = 0
        case Self.lnsAdvancePC:
            guard let value = cursor.uleb() else { throw Self.refusal(cursor, "bad ULEB128") }
            state.advance(
                UInt32(truncatingIfNeeded: value), minimumLength: minimumLength,
                maximumOperations: maximumOperations)
        case Self.lnsAdvanceLine:
            guard let value = cursor.sleb() else { throw Self.refusal(cursor, "bad SLEB128") }
            state.line &+= Int64(Int32(truncatingIfNeeded: value))
        case Self.lnsSetFile:
            guard let value = cursor.uleb() else { throw Self.refusal(cursor, "bad ULEB128") }
            state.file = UInt32(truncatingIfNeeded: value)
        case Self.lnsSetColumn:
            guard let value = cursor.uleb() else { throw Self.refusal(cursor, "bad ULEB128") }
            state.column = UInt32(truncatingIfNeeded: value)
        case Self.lnsNegateStmt:
            state.isStmt = 1 &- state.isStmt
        case Self.lnsSetBasicBlock, Self.lnsSetPrologueEnd, Self.lnsSetEpilogueBegin:
            break
        case Self.lnsConstAddPC:
            guard lineRange != 0 else { throw Self.refusal(cursor, "line_range 0") }
            state.advance(
                UInt32((255 - opcodeBase) / lineRange), minimumLength: minimumLength,
                maximumOperations: maximumOperations)
        case Self.lnsFixedAdvancePC:
            guard let delta = cursor.u16() else {
                throw Self.refusal(cursor, "truncated DW_LNS_fixed_advance_pc")
            }
            state.address &+= UInt64(delta)
            state.operationIndex = 0
        default:  // DW_LNS_set_isa
            guard let value = cursor.uleb() else { throw Self.refusal(cursor, "bad ULEB128") }
            state.isa = UInt32(truncatingIfNeeded: value)
        }
    }

    /// `run` for a first look at a unit (no rows kept, one operation per instruction): the
    /// same `low`, `high`, `sequences` and result, with the registers in locals and no row
    /// values made. `nil` (nothing set, `unitCursor` not moved) at anything `run` might refuse
    /// or that it reads another way, which `run` then decodes from the start.
    // swiftlint:disable:next function_parameter_count function_body_length cyclomatic_complexity
    mutating func runQuickly(
        _ unitCursor: inout DWARFCursor, addressSize: Int, minimumLength: UInt8, defaultIsStmt: UInt8,
        lineBase: Int8, lineRange: UInt8, opcodeBase: UInt8, standardLengths: [UInt8]
    ) -> Bool? {
        guard lineRange != 0, defaultIsStmt <= 1 else { return nil }
        // Every standard opcode below opcode_base must have its own operand count, as `run`
        // requires when it meets one; opcodes 13 up to opcode_base go to `run`.
        let expectedLengths: [UInt8] = [0, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1]
        let standardCount = min(Int(opcodeBase) - 1, 12)
        for opcode in stride(from: 1, through: standardCount, by: 1)
        where opcode > standardLengths.count || standardLengths[opcode - 1] != expectedLengths[opcode] {
            return nil
        }
        let discriminatorLength: UInt8? = standardLengths.count >= 4 ? standardLengths[3] : nil
        var cursor = unitCursor
        let range = UInt8(lineRange)
        let constantAdvance = UInt32((255 - opcodeBase) / lineRange)
        var state = Registers(isStmt: defaultIsStmt)
        var matrix = Matrix(collectRows: false)
        func advance(_ operations: UInt32) {
            state.advance(operations, minimumLength: minimumLength, maximumOperations: 1)
        }

        while let opcode = cursor.u8() {
            if opcode >= opcodeBase {
                let adjusted = opcode &- opcodeBase
                state.line &+= Int64(lineBase) + Int64(adjusted % range)
                advance(UInt32(adjusted / range))
                guard matrix.emit(state, endSequence: false) else { return nil }
                state.discriminator = 0
                continue
            }
            switch opcode {
            case 0:
                guard cursor.remaining >= 2, let length = cursor.u8(), cursor.remaining >= Int(length),
                    let extended = cursor.u8()
                else { return nil }
                switch extended {
                case Self.lneEndSequence:
                    guard matrix.emit(state, endSequence: true) else { return nil }
                    state = Registers(isStmt: defaultIsStmt)
                case Self.lneSetAddress:
                    guard Int(length) == addressSize + 1, let value = cursor.offset(size: addressSize) else {
                        return nil
                    }
                    state.address = value
                case Self.lneSetDiscriminator:
                    guard opcodeBase > Self.lneSetDiscriminator, discriminatorLength == 1, let value = cursor.uleb()
                    else { return nil }
                    state.discriminator = UInt32(truncatingIfNeeded: value)
                case Self.lneDefineFile, Self.lneNVIDIAInlinedCall, Self.lneNVIDIASetFunctionName:
                    return nil
                default:
                    guard length > 0, cursor.skip(Int(length) - 1) else { return nil }
                }
            case Self.lnsCopy:
                guard matrix.emit(state, endSequence: false) else { return nil }
                state.discriminator = 0
            case Self.lnsAdvancePC:
                guard let value = cursor.uleb() else { return nil }
                advance(UInt32(truncatingIfNeeded: value))
            case Self.lnsAdvanceLine:
                guard let value = cursor.sleb() else { return nil }
                state.line &+= Int64(Int32(truncatingIfNeeded: value))
            case Self.lnsSetFile:
                guard cursor.uleb() != nil else { return nil }
            case Self.lnsSetColumn:
                guard let value = cursor.uleb() else { return nil }
                state.column = UInt32(truncatingIfNeeded: value)
            case Self.lnsNegateStmt:
                state.isStmt = 1 &- state.isStmt
            case Self.lnsSetBasicBlock, Self.lnsSetPrologueEnd, Self.lnsSetEpilogueBegin:
                break
            case Self.lnsConstAddPC:
                advance(constantAdvance)
            case Self.lnsFixedAdvancePC:
                guard let delta = cursor.u16() else { return nil }
                state.address &+= UInt64(delta)
            case Self.lnsSetISA:
                guard let value = cursor.uleb() else { return nil }
                state.isa = UInt32(truncatingIfNeeded: value)
            default:
                return nil
            }
        }
        unitCursor = cursor
        low = matrix.low
        high = matrix.high
        sequences = matrix.sequences
        return matrix.ended
    }

    private static func refusal(_ cursor: DWARFCursor, _ message: String) -> Refusal {
        Refusal(offset: cursor.position, message: message)
    }

    /// What an extended opcode does to the registers.
    private enum Extended {
        case endSequence, setAddress(UInt64), setDiscriminator(UInt32), ignored
    }

    /// Reads the extended opcode after its 0 byte.
    /// `discriminatorLength`: standard_opcode_lengths[4], which libdw checks for
    /// `DW_LNE_set_discriminator`.
    private static func extended(
        _ cursor: inout DWARFCursor, addressSize: Int, opcodeBase: UInt8,
        discriminatorLength: UInt8?
    ) throws(Refusal) -> Extended {
        func refuse(_ message: String) -> Refusal { Refusal(offset: cursor.position, message: message) }
        guard cursor.remaining >= 2, let length = cursor.u8(), cursor.remaining >= Int(length),
            let opcode = cursor.u8()
        else { throw refuse("truncated extended opcode") }
        switch opcode {
        case lneEndSequence:
            return .endSequence
        case lneSetAddress:
            // libdw reads the unit's address size whatever the length says; a length that
            // disagrees with the file's address size suggests units of another size.
            guard Int(length) == addressSize + 1 else { throw refuse("DW_LNE_set_address of length \(length)") }
            guard let address = cursor.offset(size: addressSize) else { throw refuse("truncated DW_LNE_set_address") }
            return .setAddress(address)
        case lneSetDiscriminator:
            guard opcodeBase > lneSetDiscriminator, discriminatorLength == 1 else {
                throw refuse("DW_LNE_set_discriminator with an unexpected standard_opcode_lengths[4]")
            }
            guard let value = cursor.uleb() else { throw refuse("truncated DW_LNE_set_discriminator") }
            return .setDiscriminator(UInt32(truncatingIfNeeded: value))
        case lneDefineFile, lneNVIDIAInlinedCall, lneNVIDIASetFunctionName:
            throw refuse("extended opcode 0x\(String(opcode, radix: 16)) not read here")
        default:
            guard length > 0 else { throw refuse("extended opcode of length 0") }
            guard cursor.skip(Int(length) - 1) else { throw refuse("truncated extended opcode") }
            return .ignored
        }
    }
}
