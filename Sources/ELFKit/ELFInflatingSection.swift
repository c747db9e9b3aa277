import CELF
import CLazyLibraries

#if canImport(Glibc)
    import Glibc
#endif

/// A zlib-compressed section (`SHF_COMPRESSED` with `ELFCOMPRESS_ZLIB`, or a GNU `.zdebug_*`
/// section) inflated only as far as its reader asks (`inflate(upTo:)`): a reader that needs the
/// first units of a large section does not pay for the rest. `reader` spans the whole
/// decompressed size; bytes past `available` read as zeros until inflated, so a reader must
/// call `inflate(upTo:)` before it reads them.
///
/// Only the part inflated is checked: a stream damaged further on, or whose length differs
/// from the stated size, is found when that part is asked for (libelf's `elf_compress`, which
/// inflates all of it, refuses such a section at once).
///
/// zlib is taken from libz.so.1 (which libelf loads) on first use, through `CLazyLibraries`, so
/// that premain's start does not bind it.
///
/// Not thread-safe, as every read of an `ELFFile`.
public final class ELFInflatingSection {
    /// The decompressed bytes, `size` of them; valid while this value lives.
    public let reader: ByteReader
    /// How many leading bytes of `reader` are inflated.
    public private(set) var available = 0
    /// Why inflating stopped short (zlib's message), or `nil`.
    public private(set) var failure: String?

    private let file: ELFFile
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawPointer

    /// Readers ask for at least this many more bytes at a time, so that many small requests
    /// do not each start zlib.
    static let step = 64 << 10

    fileprivate init?(file: ELFFile, input: ByteReader, size: Int) {
        // calloc: zero pages, mapped on first write, so a large section inflated only in part
        // costs only the part's memory.
        guard size > 0, !input.bytes.isEmpty, premain_zlib_load() == nil, let output = calloc(size, 1) else {
            return nil
        }
        let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // zlib reads the input through a mutable pointer it never writes through.
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.bytes.bindMemory(to: Bytef.self).baseAddress)
        stream.pointee.avail_in = uInt(clamping: input.count)
        guard input.count <= Int(UInt32.max),
            premain_inflateInit_(stream, premain_zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else {
            stream.deallocate()
            free(output)
            return nil
        }
        self.file = file
        self.stream = stream
        self.output = output
        self.reader = ByteReader(UnsafeRawBufferPointer(start: output, count: size), bigEndian: file.isBigEndian)
    }

    deinit {
        premain_inflateEnd(stream)
        stream.deallocate()
        free(output)
    }

    /// Inflates at least the first `count` bytes (at most the whole section); `false` when the
    /// stream ends or breaks before them (`failure` says why).
    @discardableResult
    public func inflate(upTo count: Int) -> Bool {
        let wanted = min(count, reader.count)
        guard wanted > available else { return true }
        guard failure == nil else { return false }
        let target = min(max(wanted, available + Self.step), reader.count)
        stream.pointee.next_out = (output + available).assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(target - available)
        while available < target {
            let status = premain_inflate(stream, Z_NO_FLUSH)
            available = target - Int(stream.pointee.avail_out)
            if status == Z_STREAM_END {
                if available < reader.count { failure = "stream ends before the stated size" }
                break
            }
            guard status == Z_OK else {
                failure = stream.pointee.msg.map { String(cString: $0) } ?? "zlib error \(status)"
                break
            }
        }
        return available >= wanted
    }
}

extension ELFFile {
    /// `ELFCOMPRESS_ZLIB`: an `Elf*_Chdr`'s `ch_type` for a zlib stream.
    static let compressZLIB: UInt32 = 1

    /// `section` inflated on demand (`ELFInflatingSection`) when it is compressed with zlib in
    /// either format; `nil` for a section that is not compressed, another compression, a
    /// header that does not read, or a stated size above 1032 times the compressed size
    /// (libelf's limit): the caller then reads it with `contents(of:)`.
    public func inflatingContents(of section: ELFSection) -> ELFInflatingSection? {
        guard let raw = bytes(of: section) else { return nil }
        let size: UInt64
        let start: Int
        if section.isGNUCompressed {
            // "ZLIB", then the size as 8 big-endian bytes.
            guard raw.count > 12, Array(UnsafeRawBufferPointer(rebasing: raw.bytes[0..<4])) == Array("ZLIB".utf8),
                let stated = raw.u64(at: 4)
            else { return nil }
            size = isBigEndian ? stated : stated.byteSwapped
            start = 12
        } else if section.flags & ELFSection.flagCompressed != 0 {
            // Elf64_Chdr: type, reserved, size, alignment; Elf32_Chdr: type, size, alignment.
            guard raw.u32(at: 0) == Self.compressZLIB,
                let stated = is64 ? raw.u64(at: 8) : raw.u32(at: 4).map(UInt64.init)
            else { return nil }
            size = stated
            start = is64 ? 24 : 12
        } else {
            return nil
        }
        guard raw.count > start, size <= UInt64(raw.count - start) * 1032, let count = Int(exactly: size) else {
            return nil
        }
        let input = ByteReader(UnsafeRawBufferPointer(rebasing: raw.bytes[start...]), bigEndian: isBigEndian)
        return ELFInflatingSection(file: self, input: input, size: count)
    }
}
