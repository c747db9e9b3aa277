import ELFKit
