import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import Testing

@testable import StrataMacros

/// What `#Unique` and `#Index` make of their key-path lists (StrataData), and what they and
/// `@Model` report about lists a model cannot have.
@Suite struct KeyPathListMacroExpansionTests {
    static let macros: [String: MacroSpec] = modelMacros.merging([
        "Unique": MacroSpec(type: UniqueMacro.self), "Index": MacroSpec(type: IndexMacro.self),
    ]) { first, _ in first }

    @Test func uniqueListsBecomeTheModelsUniqueConstraints() {
        expectExpansion(
            #"#Unique<Trip>([\.name, \.startDate], [\.code])"#,
            expandsTo: #"""
                public static var _$uniqueConstraints: [[Swift.AnyKeyPath]] {
                    StrataData.Schema.Unique<Trip>([\.name, \.startDate], [\.code]).keyPaths
                }
                """#,
            macros: Self.macros)
    }

    @Test func indexListsOfEitherFormBecomeTheModelsIndexes() {
        expectExpansion(
            #"#Index<Trip>([\.name], [\.startDate, \.endDate])"#,
            expandsTo: #"""
                public static var _$indexes: [[Swift.AnyKeyPath]] {
                    StrataData.Schema.Index<Trip>([\.name], [\.startDate, \.endDate]).keyPaths
                }
                """#,
            macros: Self.macros)
        expectExpansion(
            #"#Index<Trip>(.binary([\.name]), .rtree([\.latitude, \.longitude]))"#,
            expandsTo: #"""
                public static var _$indexes: [[Swift.AnyKeyPath]] {
                    StrataData.Schema.Index<Trip>(.binary([\.name]), .rtree([\.latitude, \.longitude])).keyPaths
                }
                """#,
            macros: Self.macros)
    }

    @Test func badListsAreCompileTimeErrors() {
        let cases: [(source: String, diagnostic: String)] = [
            (
                #"#Unique<Trip>()"#,
                "1:2 #Unique needs one key-path list or more: #Unique<Trip>([\\.name, \\.startDate])"
            ),
            (#"#Unique<Trip>([])"#, "1:15 a list of #Unique is empty: give it one stored attribute or more"),
            (#"#Index<Trip>(.binary([]))"#, "1:22 a list of #Index is empty: give it one stored attribute or more"),
            (#"#Unique([\Trip.name])"#, "1:2 write the model type: #Unique<Trip>([\\.name])"),
            (
                #"#Index<Trip>([\.name.count])"#,
                "1:15 '\\.name.count' does not name one property: #Index lists stored attributes of the model (\\.name)"
            ),
            (#"#Unique<Trip>([\.name, \.name])"#, "1:24 'name' is listed twice in one list of #Unique"),
            (
                #"#Unique<Trip>(lists)"#,
                "1:15 give #Unique key-path lists written out ([\\.name, \\.startDate]), "
                    + "which @Model checks against the class's stored properties"
            ),
            (#"#Index<Trip>([name])"#, "1:15 a list of #Index holds key paths written out (\\.name)"),
        ]
        for (source, diagnostic) in cases {
            #expect(expansionDiagnostics(source, macros: Self.macros) == [diagnostic], "\(source)")
        }
    }

    @Test func modelReportsKeyPathsThatAreNotStoredAttributes() {
        let source = #"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.isSelected], [\.items])
                #Index<Flight>([\.summary])
                #Unique<Trip>([\.name])
                var name: String
                @Relationship(deleteRule: .cascade) var items: [Item] = []
                @Transient var isSelected = false
                var summary: String { name }
            }
            """#
        #expect(
            expansionDiagnostics(source, macros: Self.macros) == [
                "2:28 'isSelected' is not a stored property of Trip: #Unique lists stored attributes (not @Transient "
                    + "or computed properties)",
                "2:44 'items' is a relationship: #Unique lists attributes (Strata's unique constraints and indexes "
                    + "cover attributes only)",
                "3:5 #Index<Flight> is inside Trip: write #Index<Trip>",
                "3:21 'summary' is not a stored property of Trip: #Index lists stored attributes (not @Transient or "
                    + "computed properties)",
                "4:5 declare one #Unique per model, with every list in it",
            ])
    }

    @Test func aModelWithGoodListsHasNoDiagnostics() {
        let source = #"""
            @Model final class Trip {
                #Unique<Trip>([\.name, \.startDate], [\.code])
                #Index<Trip>(.binary([\.name]), .rtree([\.startDate]))
                var name: String
                var startDate: Date
                var code: String?
            }
            """#
        #expect(expansionDiagnostics(source, macros: Self.macros) == [])
    }
}
