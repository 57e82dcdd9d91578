// StrataTransfer: JSON Lines import and export, store copy and validation, over any
// `PersistentStore`. It imports StrataCore (and Foundation) only: no engine, no backend, no
// migration engine, so a program that moves data between stores links nothing it does not open.
// It re-exports the vocabulary its API speaks.
@_exported import StrataCore
