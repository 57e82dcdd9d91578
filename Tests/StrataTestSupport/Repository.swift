import Foundation
import StrataCore

/// Places in the repository the tests read: its root and the example Company model.
package enum Repository {
    /// The repository's root folder.
    package static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Examples/Models/Company.stratamodel`: the versioned model the tool's commands and the
    /// migration tests use.
    package static let companyModelDirectory: URL = root.appendingPathComponent("Examples/Models/Company.stratamodel")

    /// Every version of the Company model, read from ``companyModelDirectory``.
    package static func companyVersions() throws -> VersionedModel {
        try VersionedModel(directory: companyModelDirectory)
    }
}
