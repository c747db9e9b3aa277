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
            export LD_AUDIT=\(audit)"${LD_AUDIT:+:$LD_AUDIT}"

            # 2b. A systemd service: systemctl edit NAME.service, or
            #     /etc/systemd/system/NAME.service.d/premain-field.conf, then systemctl restart NAME
            [Service]
            Environment=LD_AUDIT=\(recorder)
            Environment=PREMAIN_FIELD_DIR=\(folder)

            # 3. One command with an exact birth time: premain field run -- COMMAND [ARGS...]
            # 4. The percentiles: premain field report \(spool)

            """
    }

    /// `'text'` for sh, a `'` inside written `'\''`.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
