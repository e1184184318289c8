import ChatAPI
import ChatTestSupport
import Support
import Testing

@testable import ChatServer

/// `RateLimits`: the three budgets, each spent apart from the others.
@Suite struct RateLimitsTests {
  let now = TestServer.start

  func limits(user: RateLimit? = nil, address: RateLimit? = nil, typing: RateLimit? = nil)
    -> RateLimits
  {
    var configuration = ServerConfiguration(devMode: true, rateLimit: user)
    configuration.addressRateLimit = address
    configuration.typingLimit = typing
    return RateLimits(configuration)
  }

  @Test func aSpentUserBudgetIs429WithTheWaitAndLeavesOtherUsersAlone() throws {
    var rates = limits(user: RateLimit(burst: 2, perSecond: 0.5))
    try rates.spend(user: "alice", at: now)
    try rates.spend(user: "alice", at: now)
    do throws(ServiceError) {
      try rates.spend(user: "alice", at: now)
      Issue.record("a third request within the burst passed")
    } catch {
      #expect(error.code == .rateLimited)
      #expect(error.retryAfterSeconds == 2)
      #expect(error.message == "Too many requests; retry later.")
    }
    try rates.spend(user: "bob", at: now)
    try rates.spend(user: "alice", at: now + .seconds(2))
  }

  @Test func anAddressBudgetSaysSoAndARequestWithoutAnAddressSpendsNothing() throws {
    var rates = limits(address: RateLimit(burst: 1, perSecond: 1))
    for _ in 0..<10 { try rates.spend(address: nil, at: now) }
    try rates.spend(address: "10.0.0.1", at: now)
    do throws(ServiceError) {
      try rates.spend(address: "10.0.0.1", at: now)
      Issue.record("a second request within the burst passed")
    } catch {
      #expect(error.message == "Too many requests from this address; retry later.")
      #expect(error.retryAfterSeconds == 1)
    }
    try rates.spend(address: "10.0.0.2", at: now)
  }

  @Test func typingIsCountedPerSocketAndAClosedSocketForgetsItsBudget() {
    var rates = limits(typing: RateLimit(burst: 1, perSecond: 1))
    func allowed(on socket: UInt64) -> Bool { rates.allowsTyping(on: socket, at: now) }
    #expect(allowed(on: 1))
    #expect(!allowed(on: 1))
    #expect(allowed(on: 2))
    rates.forget(socket: 1)
    #expect(allowed(on: 1))
  }

  @Test func aBudgetThatIsOffNeverRefuses() throws {
    var rates = limits()
    for _ in 0..<1_000 {
      try rates.spend(user: "alice", at: now)
      try rates.spend(address: "10.0.0.1", at: now)
      let allowed = rates.allowsTyping(on: 1, at: now)
      #expect(allowed)
    }
  }
}
