import Glibc

/// Bytes written at the back and read from the front, in the shape of swift-nio's
/// `ByteBuffer`: one array and a reader index into it. It is the one byte buffer of Wire:
/// every codec keeps what it has received but not yet decoded in one (``HTTPDecoder`` for
/// requests and responses, ``WebSocketDecoder``), and a connection keeps in one what the kernel
/// has not taken yet (and, over TLS, the plaintext that waits for the handshake).
///
/// Indices are positions in the storage, as in swift-nio: `readerIndex` is the first unread
/// byte, `writerIndex` the end. Reading moves `readerIndex` and copies nothing; a slice of the
/// readable bytes shares the storage. The bytes before `readerIndex` stay until
/// ``discardReadBytes(keepingCapacity:)`` drops them, which writing does first when that is
/// worth it; either moves every index, so a codec holds no index across a write.
struct ByteBuffer: Sendable {
  private var storage: [UInt8] = []
  /// The first byte not yet read.
  private(set) var readerIndex = 0

  init() {}

  /// The end of the written bytes.
  var writerIndex: Int { storage.count }
  /// How many bytes are written and not yet read.
  var readableBytes: Int { storage.count - readerIndex }
  var isEmpty: Bool { readerIndex == storage.count }

  /// The byte at `index` (a storage position, readable or not yet discarded).
  subscript(index: Int) -> UInt8 { storage[index] }

  /// The bytes at `range` (storage positions), without copying.
  subscript(range: Range<Int>) -> ArraySlice<UInt8> { storage[range] }

  // MARK: Writing

  /// Appends `bytes`, after dropping the bytes already read when that is worth it.
  mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
    if readerIndex > 0 { discardReadBytes() }
    storage.append(contentsOf: bytes)
  }

  /// Appends `bytes`, after dropping the bytes already read when that is worth it.
  mutating func writeBytes(_ bytes: some Sequence<UInt8>) {
    if readerIndex > 0 { discardReadBytes() }
    storage.append(contentsOf: bytes)
  }

  // MARK: Reading

  /// Marks `count` readable bytes as read.
  mutating func moveReaderIndex(forwardBy count: Int) {
    precondition(count >= 0 && count <= readableBytes, "read past the written bytes")
    readerIndex += count
  }

  /// The next `count` readable bytes, marked as read; the slice shares the storage.
  mutating func readSlice(length count: Int) -> ArraySlice<UInt8> {
    let slice = storage[readerIndex..<(readerIndex + count)]
    moveReaderIndex(forwardBy: count)
    return slice
  }

  /// Every readable byte, copied out; the buffer is empty afterwards.
  mutating func readAll() -> [UInt8] {
    let bytes = Array(storage[readerIndex...])
    storage.removeAll()
    readerIndex = 0
    return bytes
  }

  /// The readable bytes as a raw buffer, valid only inside `body`.
  func withUnsafeReadableBytes<T>(_ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
    try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[readerIndex...])) }
  }

  /// The position of the first `byte` at or after `start` (a storage position), nil when none
  /// is written yet.
  func firstIndex(of byte: UInt8, from start: Int) -> Int? {
    guard start < storage.count else { return nil }
    return storage.withUnsafeBytes { raw in
      guard let found = memchr(raw.baseAddress! + start, Int32(byte), raw.count - start) else {
        return nil
      }
      return raw.baseAddress!.distance(to: UnsafeRawPointer(found))
    }
  }

  // MARK: Giving memory back

  /// Drops the bytes already read when that is worth it: all of them once everything is read
  /// (the storage kept for the next bytes if its capacity is at most `keepingCapacity`, given
  /// back otherwise), or, when more than half of the storage and over 4 KiB are read, those.
  /// Every index moves.
  mutating func discardReadBytes(keepingCapacity: Int = 16 * 1024) {
    if readerIndex == storage.count {
      storage.removeAll(keepingCapacity: storage.capacity <= keepingCapacity)
      readerIndex = 0
    } else if readerIndex > 4096 && readerIndex * 2 > storage.count {
      storage.removeFirst(readerIndex)
      readerIndex = 0
    }
  }

  /// Forgets every byte and gives the storage back.
  mutating func clear() {
    storage = []
    readerIndex = 0
  }
}
