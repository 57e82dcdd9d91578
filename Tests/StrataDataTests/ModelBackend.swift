import Foundation
import StrataData
import StrataTestSupport

/// The backends a configuration's URL picks, for tests that must behave the same on each.
enum ModelBackend: String, CaseIterable, CustomStringConvertible {
    case memory, sqlite, lmdb, xml

    var description: String { rawValue }

    /// A configuration of a new store of this backend in `directory`, named `name`: a named
    /// in-memory store, or a file the URL's extension or scheme picks the backend of.
    func configuration(in directory: URL, name: String = "trips") -> ModelConfiguration {
        switch self {
        case .memory:
            return ModelConfiguration(url: URL(string: "memory:\(name)-\(directory.lastPathComponent)")!)
        case .sqlite: return ModelConfiguration(url: directory.appendingPathComponent("\(name).store"))
        case .lmdb:
            return ModelConfiguration(
                url: URL(string: "lmdb:" + directory.appendingPathComponent("\(name).lmdb").path)!)
        case .xml: return ModelConfiguration(url: directory.appendingPathComponent("\(name).xml"))
        }
    }
}
