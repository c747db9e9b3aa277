import PremainSystem

/// What `premain field env` prints: the lines that make every dynamically linked program record
/// its launches, for a shell profile and for a systemd service, and the spool folder's set-up.
enum FieldSetup {
    /// The set-up text for the recorder at `recorder` and the spool folder `folder`.
    static func text(recorder: String, folder: String) -> String {
        let audit = shellQuoted(recorder)
        let spool = shellQuoted(folder)
        return """
            # 1. The spool folder (the recorder never creates it). Each user appends to its own
            #    <uid>.records; sticky and writable by all, as /tmp is:
            sudo install -d -m 1777 \(spool)

            # 2a. Programs started from a login shell: ~/.profile, or /etc/profile.d/premain-field.sh
            export PREMAIN_FIELD_DIR=\(spool)
            export PREMAIN_FIELD_HOST="$(cat /etc/machine-id 2>/dev/null)"
            export LD_AUDIT=\(audit)"${LD_AUDIT:+:$LD_AUDIT}"

            # 2b. A systemd service: systemctl edit NAME.service, or
            #     /etc/systemd/system/NAME.service.d/premain-field.conf, then systemctl restart NAME
            [Service]
            Environment=LD_AUDIT=\(recorder)
            Environment=PREMAIN_FIELD_DIR=\(folder)
            Environment=PREMAIN_FIELD_HOST=%m

            # 3. One command with an exact birth time: premain field run -- COMMAND [ARGS...]
            # 4. The percentiles: premain field report \(spool)

            """
    }

    /// The machine ID (/etc/machine-id, systemd's %m) when it is the 32 lowercase hex digits the
    /// recorder takes from PREMAIN_FIELD_HOST; `nil` otherwise (the recorder then reads the file).
    static func machineID() -> String? {
        guard let bytes = LocalFiles.read("/etc/machine-id", limit: 128) else { return nil }
        let id = bytes.prefix { $0 != 0x0a }
        guard id.count == 32, id.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        return String(decoding: id, as: UTF8.self)
    }

    /// `'text'` for sh, a `'` inside written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
