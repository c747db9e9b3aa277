/// Shell completion scripts made from the command declarations, as swift-argument-parser
/// makes them (`--generate-completion-script`): subcommands, each command's options, the
/// words a `.choice` option takes, files where a path is expected, commands after `--`.
enum Completions {
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    /// The whole of premain as the scripts see it.
    struct Program {
        var commands: [CommandSpec]
        /// `--help`, `--version`: what `premain` itself takes before a subcommand.
        var globalOptions: [OptionSpec]
        /// `help`: takes a subcommand's name.
        var helpWord: String
    }

    static func script(for shell: Shell, _ program: Program) -> String {
        switch shell {
        case .bash: return bash(program)
        case .zsh: return zsh(program)
        case .fish: return fish(program)
        }
    }

    /// A command's positionals, as completion needs them.
    private struct Positionals {
        /// Words the first positional can be (`history add|show`).
        var keywords: [String] = []
        /// The kind of the other positionals (a file, a folder, a command after `--`).
        var kind: ValueKind?

        init(_ command: CommandSpec) {
            for argument in command.argumentRows {
                let first = argument.name.split(separator: " ").first.map(String.init) ?? argument.name
                if !first.hasPrefix("<") { keywords.append(first) }
                if argument.kind != .text, argument.kind != .command, kind == nil { kind = argument.kind }
            }
        }
    }

    // MARK: bash

    private static func bash(_ program: Program) -> String {
        let names = program.commands.map(\.name)
        var out = """
            # bash completion for premain; made by `premain completions bash` from its declarations.
            # Install: copy to /usr/share/bash-completion/completions/premain, or source it.

            _premain_values() {
                # $1: what the value is; completes $cur. One name a line (mapfile), so a file
                # name holding a space stays one name.
                case $1 in
                    file) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
                    folder) compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
                    command) mapfile -t COMPREPLY < <(compgen -c -- "$cur") ;;
                    none) COMPREPLY=() ;;
                    *) mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur") ;;
                esac
            }

            _premain() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} before=
                (( COMP_CWORD > 1 )) && before=${COMP_WORDS[COMP_CWORD-2]}
                # An option given as NAME=VALUE: bash splits the word at '='.
                if [[ $cur == = ]]; then before=$prev; prev=${COMP_WORDS[COMP_CWORD-1]}; cur=
                elif [[ $prev == = ]]; then prev=$before; (( COMP_CWORD > 2 )) && before=${COMP_WORDS[COMP_CWORD-3]}
                fi
                if (( COMP_CWORD == 1 )); then
                    _premain_values "\(names.joined(separator: " ")) \(program.helpWord) \(program.globalOptions.flatMap(\.names).joined(separator: " "))"
                    return
                fi
                local i
                for (( i = 2; i < COMP_CWORD; i++ )); do
                    if [[ ${COMP_WORDS[i]} == -- ]]; then
                        if (( i == COMP_CWORD - 1 )); then _premain_values command; else _premain_values file; fi
                        return
                    fi
                done
                case ${COMP_WORDS[1]} in

            """
        for command in program.commands {
            out += "        \(command.name)) _premain_\(identifier(command.name)) ;;\n"
        }
        out +=
            "        \(program.helpWord)) (( COMP_CWORD == 2 )) && _premain_values \"\(names.joined(separator: " "))\" ;;\n"
        out += """
                    esac
                }


            """
        for command in program.commands {
            out += "_premain_\(identifier(command.name))() {\n"
            var current: [String] = []
            var second: [String] = []
            for option in command.allOptions where !option.isFlag {
                let pattern = option.names.joined(separator: "|")
                current.append("        \(pattern)) _premain_values \(bashValues(option.kind)); return ;;\n")
                if option.valueNames.count > 1 {
                    second.append("        \(pattern)) _premain_values \(bashValues(option.kind)); return ;;\n")
                }
            }
            if !current.isEmpty { out += "    case $prev in\n" + current.joined() + "    esac\n" }
            if !second.isEmpty { out += "    case $before in\n" + second.joined() + "    esac\n" }
            let options = command.allOptions.flatMap(\.names)
            out += "    if [[ $cur == -* ]]; then\n"
            out +=
                "        _premain_values \"\(options.joined(separator: " "))\(command.acceptsPassthrough ? " --" : "")\"\n"
            out += "        return\n    fi\n"
            let positionals = Positionals(command)
            if !positionals.keywords.isEmpty {
                out +=
                    "    if (( COMP_CWORD == 2 )); then _premain_values \"\(positionals.keywords.joined(separator: " "))\"; return; fi\n"
            }
            if let kind = positionals.kind, kind != .command {
                out += "    _premain_values \(bashValues(kind))\n"
            } else {
                out += "    COMPREPLY=()\n"
            }
            out += "}\n\n"
        }
        out += "complete -o filenames -o bashdefault -F _premain premain\n"
        return out
    }

    /// The argument `_premain_values` takes for a value of `kind`.
    private static func bashValues(_ kind: ValueKind) -> String {
        switch kind {
        case .choice(let words): return "\"\(words.joined(separator: " "))\""
        case .path(.folder): return "folder"
        case .path: return "file"
        case .command: return "command"
        case .flag, .integer, .number, .text: return "none"
        }
    }

    private static func identifier(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    // MARK: zsh

    private static func zsh(_ program: Program) -> String {
        var out = """
            #compdef premain
            # zsh completion for premain; made by `premain completions zsh` from its declarations.
            # Install: save as _premain in a folder of $fpath (e.g. /usr/share/zsh/vendor-completions).

            _premain() {
                local -a subcommands
                subcommands=(

            """
        for command in program.commands {
            out += "        \(zshQuote(command.name + ":" + command.abstract))\n"
        }
        out += "        \(zshQuote(program.helpWord + ":Show help for a subcommand"))\n"
        out += """
                )
                if (( CURRENT == 2 )); then
                    _describe -t commands 'premain subcommand' subcommands
                    _arguments \(program.globalOptions.map { zshQuote(zshOption($0)) }.joined(separator: " "))
                    return
                fi
                local command=${words[2]}
                shift words
                (( CURRENT-- ))
                case $command in

            """
        for command in program.commands {
            var specs = command.allOptions.map { zshQuote(zshOption($0)) }
            let positionals = Positionals(command)
            if !positionals.keywords.isEmpty {
                specs.append(zshQuote(":action:(\(positionals.keywords.joined(separator: " ")))"))
            }
            if command.acceptsPassthrough {
                specs.append(zshQuote("*::command:_normal"))
            } else if let kind = positionals.kind {
                specs.append(zshQuote("*:" + zshLabel(kind) + ":" + zshAction(kind)))
            }
            out += "        \(command.name))\n            _arguments -s -S \\\n"
            out += specs.map { "                " + $0 }.joined(separator: " \\\n") + " ;;\n"
        }
        out += "        \(program.helpWord)) _describe -t commands 'premain subcommand' subcommands ;;\n"
        out += """
                esac
            }

            _premain "$@"

            """
        return out
    }

    /// `'(-r --runs)'{-r,--runs}'[Counted runs]:n:'`-like spec, written as one word.
    private static func zshOption(_ option: OptionSpec) -> String {
        let help = "[" + zshHelp(option.abstract) + "]"
        var values = ""
        for name in option.valueNames {
            values += ":" + name.replacing(":", with: "-") + ":" + zshAction(option.kind)
        }
        let repeats = option.repeatable ? "*" : ""
        if let short = option.short {
            // One spec per spelling, each excluding the other.
            let exclusion = "(" + short + " " + option.name + ")"
            let spellings = "{" + short + "," + option.name + "}"
            return exclusion + repeats + spellings + help + values
        }
        return (option.repeatable ? "*" : "(\(option.name))") + option.name + help + values
    }

    private static func zshLabel(_ kind: ValueKind) -> String {
        switch kind {
        case .path(.folder): return "folder"
        case .path: return "file"
        default: return "value"
        }
    }

    private static func zshAction(_ kind: ValueKind) -> String {
        switch kind {
        case .choice(let words): return "(" + words.joined(separator: " ") + ")"
        case .path(.folder): return "_files -/"
        case .path: return "_files"
        case .command: return "_command_names -e"
        case .flag, .integer, .number, .text: return " "
        }
    }

    /// Brackets and colons would end the description early.
    private static func zshHelp(_ text: String) -> String {
        text.replacing("[", with: "(").replacing("]", with: ")").replacing(":", with: "\\:")
    }

    /// A spec as the shell word it is: `{-r,--runs}` left outside the quotes so that brace
    /// expansion makes one spec per spelling.
    private static func zshQuote(_ spec: String) -> String {
        guard let open = spec.firstIndex(of: "{"), let close = spec.firstIndex(of: "}"), open < close else {
            return singleQuoted(spec)
        }
        let head = spec[..<open]
        let braces = spec[open...close]
        let tail = spec[spec.index(after: close)...]
        return (head.isEmpty ? "" : singleQuoted(String(head))) + braces + singleQuoted(String(tail))
    }

    private static func singleQuoted(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }

    // MARK: fish

    private static func fish(_ program: Program) -> String {
        var out = """
            # fish completion for premain; made by `premain completions fish` from its declarations.
            # Install: copy to /usr/share/fish/vendor_completions.d/premain.fish.

            complete -c premain -f

            """
        let none = "__fish_use_subcommand"
        for option in program.globalOptions {
            out += "complete -c premain -n \(none) \(fishOption(option))\n"
        }
        for command in program.commands {
            out += "complete -c premain -n \(none) -a \(command.name) -d \(fishQuote(command.abstract))\n"
        }
        out += "complete -c premain -n \(none) -a \(program.helpWord) -d \(fishQuote("Show help for a subcommand"))\n"
        out +=
            "complete -c premain -n \(fishQuote("__fish_seen_subcommand_from \(program.helpWord)")) -a \(fishQuote(program.commands.map(\.name).joined(separator: " ")))\n"
        for command in program.commands {
            let seen = fishQuote("__fish_seen_subcommand_from \(command.name)")
            out += "\n"
            for option in command.allOptions {
                out += "complete -c premain -n \(seen) \(fishOption(option))\n"
            }
            let positionals = Positionals(command)
            if !positionals.keywords.isEmpty {
                out += "complete -c premain -n \(seen) -a \(fishQuote(positionals.keywords.joined(separator: " ")))\n"
            }
            if command.acceptsPassthrough {
                out +=
                    "complete -c premain -n \(fishQuote("__fish_seen_subcommand_from \(command.name); and contains -- -- (commandline -opc)")) -F -a '(__fish_complete_command)'\n"
            }
            if let kind = positionals.kind, kind != .command {
                out +=
                    "complete -c premain -n \(seen) \(kind == .path(.folder) ? "-a '(__fish_complete_directories)'" : "-F")\n"
            }
        }
        return out
    }

    private static func fishOption(_ option: OptionSpec) -> String {
        var words: [String] = []
        if let short = option.short { words.append("-s " + short.dropFirst()) }
        words.append("-l " + option.name.dropFirst(2))
        switch option.kind {
        case .flag: break
        case .choice(let values): words.append("-x -a " + fishQuote(values.joined(separator: " ")))
        case .path(.folder): words.append("-x -a '(__fish_complete_directories)'")
        case .path: words.append("-r -F")
        case .command: words.append("-x -a '(__fish_complete_command)'")
        case .integer, .number, .text: words.append("-x")
        }
        words.append("-d " + fishQuote(option.abstract))
        return words.joined(separator: " ")
    }

    private static func fishQuote(_ text: String) -> String {
        "'" + text.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }
}
