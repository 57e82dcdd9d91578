import Foundation
import Strata

extension DemoCompanyModel {
    /// Every version of the built-in Company model, read from the JSON compiled into the tool.
    static func versioned() throws -> VersionedModel {
        let models = try versions.map { version in
            try Model(jsonData: Data(version.json.utf8), source: "the built-in \(name) model \(version.identifier)")
        }
        return try VersionedModel(name: name, versions: models, current: current)
    }
}
