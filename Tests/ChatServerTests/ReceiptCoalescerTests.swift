import ChatAPI
import Testing

@testable import ChatServer

/// `ReceiptCoalescer`: at most one `receipts` frame per conversation per window, carrying every
/// change of the window, to the members as of the last one.
@Suite struct ReceiptCoalescerTests {
  let start = Duration.seconds(100)
  let window = ReceiptCoalescer.window

  func read(_ user: String, _ upTo: Int, delivered: Int? = nil) -> MemberReceipts {
    MemberReceipts(userId: user, deliveredUpTo: delivered ?? upTo, readUpTo: upTo)
  }

  @Test func aChangeAfterAQuietWindowGoesAtOnce() {
    var coalescer = ReceiptCoalescer()
    let first = coalescer.add(read("bob", 1), in: "c", to: ["alice", "bob"], at: start)
    #expect(first == .send([read("bob", 1)]))
    let next = coalescer.add(read("bob", 2), in: "c", to: ["alice", "bob"], at: start + window)
    #expect(next == .send([read("bob", 2)]))
    // Another conversation has a window of its own.
    let other = coalescer.add(read("bob", 1), in: "d", to: ["bob"], at: start + window)
    #expect(other == .send([read("bob", 1)]))
  }

  @Test func changesInsideAWindowWaitForItsEndAndGoInOneFrame() {
    var coalescer = ReceiptCoalescer()
    let everyone = ["alice", "bob", "carol"]
    _ = coalescer.add(read("bob", 1), in: "c", to: everyone, at: start)
    let later = start + .milliseconds(100)
    let bob = coalescer.add(read("bob", 3, delivered: 5), in: "c", to: everyone, at: later)
    #expect(bob == .flush(after: .milliseconds(150)))
    let alice = coalescer.add(read("alice", 2), in: "c", to: everyone, at: later)
    #expect(alice == .held)
    // A lower number of the same window does not lower what the frame carries.
    let lower = coalescer.add(read("bob", 2), in: "c", to: ["alice", "bob"], at: later)
    #expect(lower == .held)
    let frame = coalescer.flush("c", at: start + window)
    #expect(frame?.members == [read("alice", 2), read("bob", 3, delivered: 5)])
    // To the members as of the last change: carol was removed meanwhile.
    #expect(frame?.recipients == ["alice", "bob"])
    // The frame started a new window: the next change waits for it.
    let after = coalescer.add(read("bob", 4), in: "c", to: ["alice", "bob"], at: start + window)
    #expect(after == .flush(after: window))
  }

  @Test func aFlushWithNothingDueSendsNothing() {
    var coalescer = ReceiptCoalescer()
    let unknown = coalescer.flush("c", at: start)
    #expect(unknown == nil)
    _ = coalescer.add(read("bob", 1), in: "c", to: ["bob"], at: start)
    let sentAlready = coalescer.flush("c", at: start + window)
    #expect(sentAlready == nil)
  }

  @Test func quietWindowsAreForgottenBeyondTheLimit() {
    var coalescer = ReceiptCoalescer()
    for number in 0..<ReceiptCoalescer.windowsLimit {
      _ = coalescer.add(read("bob", 1), in: "quiet-\(number)", to: ["bob"], at: start)
    }
    _ = coalescer.add(read("bob", 1), in: "c", to: ["bob"], at: start)
    let later = start + window
    _ = coalescer.add(read("bob", 2), in: "c", to: ["bob"], at: later - .milliseconds(1))
    #expect(coalescer.count == ReceiptCoalescer.windowsLimit + 1)
    let frame = coalescer.flush("c", at: later)
    #expect(frame != nil)
    #expect(coalescer.count == 1)
  }
}
