import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite struct ManagedMacroExpansionTests {
    @Test func storedPropertiesBecomeSlotAccessorsNumberedByKind() {
        expectExpansion(
            """
            @Managed
            final class Employee: ManagedObject {
                var name: String
                @Attribute(default: 1.7) var height: Double
                @Relationship(inverse: "employees") var department: Department?
                @Relationship(inverse: "members") var projects: Set<Project>
                var level: Int16
            }
            """,
            expandsTo: """
                final class Employee: ManagedObject {
                    var name: String {
                        get {
                            self.attributeValue(atSlot: 0)
                        }
                        set {
                            self.setAttributeValue(newValue, atSlot: 0)
                        }
                    }
                    var height: Double {
                        get {
                            self.attributeValue(atSlot: 1)
                        }
                        set {
                            self.setAttributeValue(newValue, atSlot: 1)
                        }
                    }
                    var department: Department? {
                        get {
                            self.relationshipValue(atSlot: 0)
                        }
                        set {
                            self.setRelationshipValue(newValue, atSlot: 0)
                        }
                    }
                    var projects: Set<Project> {
                        get {
                            self.relationshipValue(atSlot: 1)
                        }
                        set {
                            self.setRelationshipValue(newValue, atSlot: 1)
                        }
                    }
                    var level: Int16 {
                        get {
                            self.attributeValue(atSlot: 2)
                        }
                        set {
                            self.setAttributeValue(newValue, atSlot: 2)
                        }
                    }

                    /// The stored properties `@Managed` found, in declaration order.
                    override class var declaredProperties: [DeclaredProperty] {
                        [
                            .attribute("name", String.self),
                            .attribute("height", Double.self, default: 1.7),
                            .relationship("department", Department?.self, inverse: "employees"),
                            .relationship("projects", Set<Project>.self, inverse: "members"),
                            .attribute("level", Int16.self),
                        ]
                    }
                }
                """)
    }

    @Test func computedStaticAndTransientPropertiesAreLeftAlone() {
        expectExpansion(
            """
            @Managed
            public final class Tag: ManagedObject {
                static var count: Int = 0
                var label: String { "tag" }
                @Transient var cache: [String] = []
            }
            """,
            expandsTo: """
                public final class Tag: ManagedObject {
                    static var count: Int = 0
                    var label: String { "tag" }
                    var cache: [String] = []

                    /// The stored properties `@Managed` found, in declaration order.
                    public override class var declaredProperties: [DeclaredProperty] {
                        []
                    }
                }
                """)
    }

    @Test func propertiesThatCannotBeManagedAreDiagnosed() {
        expectExpansion(
            """
            @Managed
            final class Note: ManagedObject {
                let id: Int
                var a, b: Int
                var text = "x"
                var count: Int = 0
            }
            """,
            expandsTo: """
                final class Note: ManagedObject {
                    let id: Int
                    var a, b: Int
                    var text = "x"
                    var count: Int = 0

                    /// The stored properties `@Managed` found, in declaration order.
                    override class var declaredProperties: [DeclaredProperty] {
                        []
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "a managed property is a 'var'; mark a constant that is not stored in the model @Transient",
                    line: 3, column: 5),
                DiagnosticSpec(message: "declare each managed property in a 'var' of its own", line: 4, column: 5),
                DiagnosticSpec(message: "managed property 'text' needs a type annotation", line: 5, column: 9),
                DiagnosticSpec(
                    message:
                        "managed property 'count' takes its default from the model: write @Attribute(default: ...) instead of an initial value",
                    line: 6, column: 20),
            ])
    }

    @Test func aClassThatIsNotADirectManagedObjectSubclassIsDiagnosed() {
        expectExpansion(
            """
            @Managed
            final class Manager: Employee {
                var reports: Int
            }
            """,
            expandsTo: """
                final class Manager: Employee {
                    var reports: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed needs ManagedObject as the superclass, written first in the inheritance clause",
                    line: 2, column: 13)
            ])
    }

    @Test func aStructIsDiagnosed() {
        expectExpansion(
            """
            @Managed
            struct Point {
                var x: Int
            }
            """,
            expandsTo: """
                struct Point {
                    var x: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@Managed applies to a class that inherits from ManagedObject", line: 1, column: 1)
            ])
    }
}
