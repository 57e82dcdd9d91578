// Generated from Examples/Models/Company.stratamodel: do not edit. DemoModelSourceTests checks that it
// matches the directory; STRATA_RECORD_DEMO_MODEL=1 swift test --skip-build --filter DemoModelSourceTests
// writes it anew.

/// The Company example model, compiled into the tool so that `strata demo` runs in any directory.
enum DemoCompanyModel {
    /// The model's name.
    static let name = "Company"
    /// The version new stores are written with.
    static let current = "v3"
    /// Every version's JSON file, oldest first.
    static let versions: [(identifier: String, json: String)] = [
        (
            "v1",
            #"""
            {
              "format": "strata-model",
              "formatVersion": 1,
              "version": "v1",
              "entities": [
                {
                  "name": "Company",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "founded", "type": "date", "optional": true }
                  ],
                  "relationships": [
                    { "name": "departments", "destination": "Department", "inverse": "company", "toMany": true, "deleteRule": "cascade" }
                  ]
                },
                {
                  "name": "Department",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "budget", "type": "decimal", "optional": true }
                  ],
                  "relationships": [
                    { "name": "company", "destination": "Company", "inverse": "departments" },
                    { "name": "employees", "destination": "Employee", "inverse": "department", "toMany": true }
                  ]
                },
                {
                  "name": "Employee",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1, "maxLength": 100 } },
                    { "name": "birthday", "type": "date", "optional": true },
                    { "name": "height", "type": "double", "optional": true, "validation": { "min": 0.0, "max": 3.0 } }
                  ],
                  "relationships": [
                    { "name": "department", "destination": "Department", "inverse": "employees" }
                  ],
                  "indexes": [
                    { "name": "byName", "properties": ["name"] }
                  ]
                }
              ]
            }
            """#
        ),
        (
            "v2",
            #"""
            {
              "format": "strata-model",
              "formatVersion": 1,
              "version": "v2",
              "entities": [
                {
                  "name": "Company",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "founded", "type": "date", "optional": true }
                  ],
                  "relationships": [
                    { "name": "departments", "destination": "Department", "inverse": "company", "toMany": true, "deleteRule": "cascade" }
                  ]
                },
                {
                  "name": "Department",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "budget", "type": "decimal", "optional": true }
                  ],
                  "relationships": [
                    { "name": "company", "destination": "Company", "inverse": "departments" },
                    { "name": "employees", "destination": "Employee", "inverse": "department", "toMany": true }
                  ]
                },
                {
                  "name": "Employee",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1, "maxLength": 100 } },
                    { "name": "dateOfBirth", "type": "date", "optional": true, "renamingIdentifier": "birthday" },
                    { "name": "height", "type": "double", "optional": true, "validation": { "min": 0.0, "max": 3.0 } },
                    { "name": "level", "type": "integer16", "default": 1, "validation": { "min": 1, "max": 10 } }
                  ],
                  "relationships": [
                    { "name": "department", "destination": "Department", "inverse": "employees" }
                  ],
                  "indexes": [
                    { "name": "byName", "properties": ["name"] }
                  ]
                }
              ]
            }
            """#
        ),
        (
            "v3",
            #"""
            {
              "format": "strata-model",
              "formatVersion": 1,
              "version": "v3",
              "entities": [
                {
                  "name": "Company",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "founded", "type": "date", "optional": true }
                  ],
                  "relationships": [
                    { "name": "departments", "destination": "Department", "inverse": "company", "toMany": true, "deleteRule": "cascade" }
                  ]
                },
                {
                  "name": "Department",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "budget", "type": "decimal", "optional": true }
                  ],
                  "relationships": [
                    { "name": "company", "destination": "Company", "inverse": "departments" },
                    { "name": "employees", "destination": "Employee", "inverse": "department", "toMany": true }
                  ]
                },
                {
                  "name": "Employee",
                  "attributes": [
                    { "name": "name", "type": "string", "validation": { "minLength": 1, "maxLength": 100 } },
                    { "name": "dateOfBirth", "type": "date", "optional": true, "renamingIdentifier": "birthday" },
                    { "name": "height", "type": "double", "default": 1.7, "validation": { "min": 0.0, "max": 3.0 } },
                    { "name": "level", "type": "integer16", "default": 1, "validation": { "min": 1, "max": 10 } }
                  ],
                  "relationships": [
                    { "name": "department", "destination": "Department", "inverse": "employees" },
                    { "name": "projects", "destination": "Project", "inverse": "members", "toMany": true }
                  ],
                  "indexes": [
                    { "name": "byName", "properties": ["name"] }
                  ]
                },
                {
                  "name": "Project",
                  "attributes": [
                    { "name": "title", "type": "string", "validation": { "minLength": 1 } },
                    { "name": "deadline", "type": "date", "optional": true }
                  ],
                  "relationships": [
                    { "name": "members", "destination": "Employee", "inverse": "projects", "toMany": true, "ordered": true }
                  ],
                  "uniqueConstraints": [["title"]]
                }
              ]
            }
            """#
        ),
    ]
}
