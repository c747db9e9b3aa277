// `TextSafety` lives in LosslessText, below the stages that write messages (the launch and
// judge sessions name files in theirs); every renderer and the CLI keep reaching it through
// PremainRender.
@_exported import LosslessText
