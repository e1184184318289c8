import Testing

@testable import ChatSimulation

/// The checker can fail: each known bug, put back with its switch, is caught within a few seeds.
@Suite(.timeLimit(.minutes(10)))
struct KnownBugTests {
  /// The most seeds a bug may survive.
  static let bound: UInt64 = 20

  /// Each bug by name, and the invariants its symptom breaks: a seed counts as catching the bug only
  /// when it breaks one of them (any other violation would be a different bug).
  static let rows: [(name: String, symptoms: [Violation.Invariant])] = [
    ("retryWithNewID", [Violation.Invariant.duplicated, .identity]),
    ("orderByDeviceClock", [.misordered]),
    ("skipCatchUpAfterReconnect", [.divergent, .gap]),
    // The queue retries the refused message for ever, so the world never goes quiet and the
    // messages behind it stay in the outbox.
    ("stopOutboxAtFirst4xx", [.notQuiet, .undrained]),
    ("postNewestFirst", [.sendOrder]),
    // A conversation created while a sync failed is never listed until the next reconnect:
    // rare under the seeds' own plans, so with the plan aimed at it (`Focus.failingSync`).
    ("noRetryOfFailedSync", [.divergent]),
    // API.md Part 2: a delete erases everywhere, also from the search index; a refused delete
    // leaves the message as the server has it (rare under the seeds' own plans: about one
    // seed in 110; with the plan aimed at it, `Focus.refusedChanges`).
    ("deleteKeepsSearchIndex", [.erased]),
    // Issue 33: the same one level down, in the files: no query finds the text, but the
    // indexes' unmerged segments still hold its bytes.
    ("eraseLeavesIndexSegments", [.bytesLeft]),
    ("keepRefusedDelete", [.divergent]),
    // API.md Part 2's groups that change: a removed member hears nothing more (the server's
    // bug), and a device stands where the server says it does (the client's).
    ("deliverToRemovedMembers", [.invisible]),
    // The server takes a post in a one-to-one conversation from someone the other blocked.
    ("acceptBlockedPosts", [.blockedPost]),
    // A delete takes the bytes a forward of the message still carries.
    ("deleteDropsSharedMedia", [.media]),
    ("ignoreMyRemoval", [.membership]),
    // API.md Part 2's media: a download is checked against its sender's sha256 (spoiled
    // downloads are rare under the seeds' own plans; with the plan aimed at them,
    // `Focus.spoiledDownloads`).
    ("trustDownloads", [.media]),
    // API.md Part 3 (issue 35): a reaction taken back stays, a quote does not follow its
    // message's edit or delete (nor its erasure: the served quote keeps the text), a read
    // mention still counts.
    ("reactionsIgnoreRemovals", [.reactions]),
    ("quotesAsServed", [.quote, .bytesLeft]),
    ("mentionsIgnoreRead", [.mentions]),
    // Issue 36: the last pin, unpinned on another device, stays.
    ("pinsKeepLastWhenNoneServed", [.pins]),
    // A draft typed on one device never shows on the user's others.
    ("draftsIgnoreServed", [.drafts]),
    // A device away during a block never learns it.
    ("blockedIgnoresSync", [.blocking]),
    // Issue 38, with every kill and crash a power loss (`Focus.powerLoss`): a device that does
    // not sync its commits shows a message or a tick it then lost (the view goes back); a
    // server that does not, loses messages it acknowledged.
    ("unsyncedCommits", [.lost, .receiptBackwards, .sequenceChanged]),
    ("acknowledgeUnsynced", [.lost, .sequenceChanged]),
  ]

  @Test(arguments: rows)
  func eachKnownBugIsCaughtWithinAFewSeeds(name: String, symptoms: [Violation.Invariant])
    async throws
  {
    var options = SimulationOptions(profile: .quick, keepsTrace: false)
    let known = options.putBack(name)
    #expect(known, "no known bug is called \(name)")
    if name == "noRetryOfFailedSync" { options.focus = .failingSync }
    if name == "keepRefusedDelete" { options.focus = .refusedChanges }
    if name == "trustDownloads" { options.focus = .spoiledDownloads }
    if name == "unsyncedCommits" || name == "acknowledgeUnsynced" { options.focus = .powerLoss }
    var caught: (seed: UInt64, violation: Violation)?
    for seed in 1...Self.bound {
      let result = await SimulationRunner.run(seed: seed, options: options)
      if let violation = result.violations.first(where: { symptoms.contains($0.invariant) }) {
        caught = (seed, violation)
        break
      }
    }
    let (seed, violation) = try #require(caught, "\(name) survived \(Self.bound) seeds")
    print("\(name): caught by seed \(seed): \(violation)")
  }

  /// Every switch, the client's and the server's, has its row above.
  @Test func everyKnownBugHasARow() {
    #expect(Set(SimulationOptions.knownBugNames) == Set(Self.rows.map(\.name)))
  }
}
