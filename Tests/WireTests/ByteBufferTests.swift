import Testing

@testable import Wire

@Suite struct ByteBufferTests {
  @Test func readingMovesTheReaderIndexAndLeavesTheRestReadable() {
    var buffer = ByteBuffer()
    buffer.writeBytes(Array("hello world".utf8))
    #expect(Array(buffer.readSlice(length: 6)) == Array("hello ".utf8))
    #expect(buffer.readerIndex == 6)
    #expect(buffer.readableBytes == 5)
    #expect(buffer.withUnsafeReadableBytes { Array($0) } == Array("world".utf8))
  }

  @Test func aSliceSharesTheStorageAndKeepsItsPositions() {
    var buffer = ByteBuffer()
    buffer.writeBytes(Array("abc\r\ndef".utf8))
    let slice = buffer[3..<5]
    #expect(slice.startIndex == 3)
    #expect(Array(slice) == [0x0D, 0x0A])
  }

  @Test func aByteIsFoundFromAnyPositionAndNotBeforeIt() {
    var buffer = ByteBuffer()
    buffer.writeBytes(Array("a\nb\nc".utf8))
    #expect(buffer.firstIndex(of: 0x0A, from: 0) == 1)
    #expect(buffer.firstIndex(of: 0x0A, from: 2) == 3)
    #expect(buffer.firstIndex(of: 0x0A, from: 4) == nil)
    #expect(buffer.firstIndex(of: 0x0A, from: 99) == nil)
  }

  @Test func readAllEmptiesTheBuffer() {
    var buffer = ByteBuffer()
    buffer.writeBytes([1, 2, 3, 4])
    buffer.moveReaderIndex(forwardBy: 1)
    #expect(buffer.readAll() == [2, 3, 4])
    #expect(buffer.isEmpty)
    #expect(buffer.readerIndex == 0)
  }

  @Test func writingAfterEverythingWasReadStartsAgainAtTheFront() {
    var buffer = ByteBuffer()
    buffer.writeBytes([1, 2, 3])
    buffer.moveReaderIndex(forwardBy: 3)
    buffer.writeBytes([4])
    #expect(buffer.readerIndex == 0)
    #expect(buffer.writerIndex == 1)
    #expect(buffer.readAll() == [4])
  }

  @Test func writingDropsAReadFrontOnlyWhenItIsOverHalfAndOver4KiB() {
    var buffer = ByteBuffer()
    buffer.writeBytes([UInt8](repeating: 7, count: 10_000))
    buffer.moveReaderIndex(forwardBy: 4_000)
    buffer.writeBytes([8])
    #expect(buffer.readerIndex == 4_000, "under 4 KiB read: kept")
    buffer.moveReaderIndex(forwardBy: 2_000)
    buffer.writeBytes([9])
    #expect(buffer.readerIndex == 0, "6,000 of 10,001 read: dropped")
    #expect(buffer.readableBytes == 4_002)
    #expect(buffer[buffer.writerIndex - 1] == 9)
  }

  @Test func theReadableBytesReachTheKernelAsOneRawBuffer() {
    var buffer = ByteBuffer()
    buffer.writeBytes(Array("xxpayload".utf8))
    buffer.moveReaderIndex(forwardBy: 2)
    let copied = buffer.withUnsafeReadableBytes { Array($0) }
    #expect(copied == Array("payload".utf8))
  }

  @Test func aLineIsReadWithoutItsCRLFAndABareLFIsRefused() {
    var buffer = ByteBuffer()
    var scanned = 0
    buffer.writeBytes(Array("GET / HTTP/1.1\r\nHost".utf8))
    guard case .line(let range) = buffer.readHTTPLine(limit: 100, scanned: &scanned) else {
      Issue.record("no line")
      return
    }
    #expect(String(decoding: buffer[range], as: UTF8.self) == "GET / HTTP/1.1")
    #expect(buffer.readHTTPLine(limit: 100, scanned: &scanned) == .needMore)
    #expect(scanned == 4, "the bytes already searched are not searched again")
    buffer.writeBytes(Array(": x\n".utf8))
    #expect(buffer.readHTTPLine(limit: 100, scanned: &scanned) == .bareLF)
  }
}
