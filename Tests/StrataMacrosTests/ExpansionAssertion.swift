import SwiftParser
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// The macros of the plugin by the names users write.
let strataMacros: [String: MacroSpec] = [
    "Managed": MacroSpec(type: ManagedMacro.self),
    "_ManagedSlot": MacroSpec(type: ManagedSlotMacro.self),
    "Attribute": MacroSpec(type: PropertyMarkerMacro.self),
    "Relationship": MacroSpec(type: PropertyMarkerMacro.self),
    "Transient": MacroSpec(type: PropertyMarkerMacro.self),
]

/// `assertMacroExpansion` reporting to Swift Testing: records an issue at the caller's line
/// when `source` does not expand to `expanded` with exactly `diagnostics`.
func expectExpansion(
    _ source: String, expandsTo expanded: String, diagnostics: [DiagnosticSpec] = [],
    macros: [String: MacroSpec] = strataMacros,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
) {
    assertMacroExpansion(
        source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
        failureHandler: { failure in
            Issue.record(
                Comment(rawValue: failure.message),
                sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
        })
}

/// The diagnostics of expanding `source` with `macros`, each as `line:column message`, in the
/// order they were reported: for tests of what a macro reports, whatever it generates.
func expansionDiagnostics(_ source: String, macros: [String: MacroSpec]) -> [String] {
    let file = Parser.parse(source: source)
    let context = BasicMacroExpansionContext(
        sourceFiles: [file: .init(moduleName: "TestModule", fullFilePath: "test.swift")])
    _ = file.expand(
        macroSpecs: macros,
        contextGenerator: { syntax in
            BasicMacroExpansionContext(sharingWith: context, lexicalContext: syntax.allMacroLexicalContexts())
        }, indentationWidth: .spaces(4))
    return context.diagnostics.map { diagnostic in
        let location = context.location(for: diagnostic.position, anchoredAt: diagnostic.node, fileName: "test.swift")
        return "\(location.line):\(location.column) \(diagnostic.message)"
    }
}
