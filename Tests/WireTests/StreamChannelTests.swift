import Testing

@testable import Wire

/// What `StreamChannel` connects to: a numeric address, a name resolved to one.
@Suite struct StreamChannelTests {
  @Test func aNameIsResolvedToANumericAddressIPv4First() {
    #expect(StreamChannel.numericAddress(of: "127.0.0.1") == "127.0.0.1")
    #expect(StreamChannel.numericAddress(of: "::1") == "::1")
    #expect(StreamChannel.numericAddress(of: "localhost") == "127.0.0.1")
    #expect(StreamChannel.numericAddress(of: "no-such-host.invalid") == nil)
  }
}
