#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `RLIMIT_FSIZE` as `setrlimit` takes it (an enum on Glibc, an `Int32` on Darwin), for the
/// probes that limit their own file size to play a full disk.
#if os(Linux)
    package let fileSizeResource = Int32(RLIMIT_FSIZE.rawValue)
#else
    package let fileSizeResource = RLIMIT_FSIZE
#endif
