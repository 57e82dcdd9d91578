import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension stat {
    /// The last modification time (`st_mtim` on Linux, `st_mtimespec` on Darwin).
    package var modificationTime: timespec {
        #if canImport(Darwin)
            st_mtimespec
        #else
            st_mtim
        #endif
    }
}
