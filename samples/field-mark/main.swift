// field-mark-swift: the Swift way to call premain_mark (docs/recorder.md).
//
// Built: swiftc -O -I samples/field-mark main.swift -o DIR/field-mark/field-mark-swift
//   (module.modulemap beside this file makes the header-only C API the module PremainMark).
// Shows: prints exactly "marked\n" and exits 0; under the recorder its spool gets a kind=mark
//   record named "ready" after the launch's main.
import PremainMark

premain_mark("ready")
print("marked")
