import ChatDomain
import ChatTestSupport
import Foundation
import SQLite
import Testing

@testable import ChatData

/// A delete (and an edit) erases every byte of the text it replaces from the device's files:
/// rows, both search indexes' segments, freed pages and the write-ahead log. Read the way an
/// attacker reads a stolen file: its bytes.
@Suite struct StoreErasureTests {
  /// Markers in every script the indexes handle: Latin (the word index), CJK, Thai and emoji
  /// (the trigram index too).
  static let markers = ["zqxvelmarker", "䨻䲜䶑", "ฃฅฆฌ", "🦩🪼"]

  private func edit(_ f: StoreFixture, _ sequence: Int, of target: Int, text: String)
    -> MessageRecord
  {
    var edit = f.serverMessage(sequence, text: text)
    edit.kind = .edit
    edit.target = StoreFixture.id(target)
    return edit
  }

  private func delete(_ f: StoreFixture, _ sequence: Int, of target: Int) -> MessageRecord {
    var delete = f.serverMessage(sequence, text: "")
    delete.kind = .delete
    delete.target = StoreFixture.id(target)
    return delete
  }

  /// bob's message 1 with every marker, then 300 others in batches (several index segments),
  /// an edit that replaces 1's text, and a delete of 1.
  private func liveThroughADelete(_ f: StoreFixture) async throws {
    try await f.addConversation()
    let secret = "secret " + Self.markers.joined(separator: " ")
    try await f.store.saveServerMessages([f.serverMessage(1, text: secret)], in: f.chat, me: f.me)
    for batch in 0..<6 {
      let messages = (0..<50).map { n in
        f.serverMessage(2 + batch * 50 + n, text: "東京で会いましょう \(batch) \(n) 🚲")
      }
      try await f.store.saveServerMessages(messages, in: f.chat, me: f.me)
    }
    try await f.store.saveServerMessages(
      [edit(f, 302, of: 1, text: "䴔䴕䵷 Y")], in: f.chat, me: f.me)
    try await f.store.saveServerMessages([delete(f, 303, of: 1)], in: f.chat, me: f.me)
    await f.store.finishErasure()
  }

  private func found(_ strings: [String], at path: String) -> [String] {
    strings.filter { Database.occurrences(of: Array($0.utf8), inFilesAt: path) > 0 }
  }

  @Test func aDeletedAndEditedTextLeavesNoByteInTheFiles() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await StoreFixture.make(.file(path))
    try await liveThroughADelete(f)
    #expect(found(Self.markers + ["䴔䴕䵷"], at: path).isEmpty)
    #expect(try await f.store.search("東京", limit: 5).count == 5, "the others are still found")
    #expect(try await f.store.read { try SegmentEraser.isOwed($0) } == false)
  }

  /// The same life with the indexes never merged (`KnownBugs.eraseLeavesIndexSegments`): no
  /// query finds the text, but the file holds it: what the test above would see without the
  /// erasure pass.
  @Test func withoutTheMergeTheSegmentsStillHoldTheText() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await StoreFixture.make(.file(path), knownBugs: .eraseLeavesIndexSegments)
    try await liveThroughADelete(f)
    #expect(try await f.store.search("zqxvelmarker", limit: 5).isEmpty)
    #expect(try await f.store.search("䨻䲜䶑", limit: 5).isEmpty)
    #expect(found(Self.markers, at: path) == Self.markers)
  }

  /// A delete made on this device (my own message, posted and not) erases as one from the
  /// server does.
  @Test func myOwnDeleteErasesTooSentOrNot() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    let f = try await StoreFixture.make(.file(path))
    try await f.addConversation()
    let unsent = StoreFixture.id(900)
    try await f.store.insertPending(f.pending(unsent, text: "unsent 䨻䲜䶑"), queuedAt: 0)
    var sent = f.serverMessage(1, from: f.me, text: "sent ฃฅฆฌ 🦩🪼")
    sent.clientID = StoreFixture.id(901)
    try await f.store.saveServerMessages([sent], in: f.chat, me: f.me)
    for (target, id) in [(unsent, StoreFixture.id(902)), (sent.clientID, StoreFixture.id(903))] {
      _ = try await f.store.deleteOwn(
        target, in: f.chat, sender: f.me, id: id, at: Date(timeIntervalSince1970: 6_000))
    }
    await f.store.finishErasure()
    #expect(found(Array(Self.markers.dropFirst()), at: path).isEmpty)
  }

  /// A file made before the erasure existed (the unspaced index was never merged) is erased
  /// once when it first opens with this version (`v10-erasure` owes a pass).
  @Test func aFileFromBeforeIsErasedAtItsFirstOpen() async throws {
    let folder = try TemporaryFolder()
    let path = folder.path + "/chat.sqlite"
    try SchemaFixtures.copy("v8", "client-alice.sqlite", to: path)
    let f = try await StoreFixture.make(.file(path))
    await f.store.finishErasure()
    #expect(try await f.store.read { try SegmentEraser.isOwed($0) } == false)
    #expect(try await f.store.read { try $0.scalarInt("SELECT erased FROM erasure") } == 1)
  }
}
