import Foundation
import Strata

/// The files a store occupies.
enum StoreFiles {
    /// The bytes the store at `url` occupies: every file of its directory (LMDB), or its file and
    /// the files beside it whose names start with the file's name (`-wal`, `-shm`, `.lock`);
    /// `nil` for a store with no location on disk (`memory:`).
    static func sizeOnDisk(of url: StoreURL) -> Int? {
        guard url.scheme != "memory", !url.location.isEmpty,
            (try? url.plainLocation(for: url.scheme, acceptingQueryOptions: true)) != nil
        else { return nil }
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: url.location, isDirectory: &isDirectory) else { return nil }
        func size(_ path: String) -> Int {
            ((try? manager.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        }
        if isDirectory.boolValue {
            let files = (try? manager.subpathsOfDirectory(atPath: url.location)) ?? []
            return files.reduce(0) { $0 + size(url.location + "/" + $1) }
        }
        let file = URL(fileURLWithPath: url.location)
        let directory = file.deletingLastPathComponent().path
        let name = file.lastPathComponent
        let siblings = ((try? manager.contentsOfDirectory(atPath: directory)) ?? []).filter {
            $0 != name && $0.hasPrefix(name)
        }
        return size(url.location) + siblings.reduce(0) { $0 + size(directory + "/" + $1) }
    }
}
