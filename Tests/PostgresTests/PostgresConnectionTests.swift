import Testing

@testable import Postgres

/// The libpq layer's own rules; the store on a real PostgreSQL is proven by the contract suite
/// (scripts/test-server: contract-postgres, contract-2-nodes, nodes).
@Suite struct PostgresConnectionTests {
  @Test func placeholdersAreNumberedOutsideQuotedTextOnly() {
    #expect(
      PostgresConnection.numberingPlaceholders(
        "SELECT ? FROM t WHERE a = ? AND b = '?' AND \"c?\" = ?")
        == "SELECT $1 FROM t WHERE a = $2 AND b = '?' AND \"c?\" = $3")
    #expect(
      PostgresConnection.numberingPlaceholders("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
  }

  @Test func aURLWithoutAConnectTimeoutGetsTenSeconds() {
    #expect(
      PostgresConnection.withConnectTimeout("postgres://u@h:5432/chat")
        == "postgres://u@h:5432/chat?connect_timeout=10")
    #expect(
      PostgresConnection.withConnectTimeout("postgres://u@h/chat?sslmode=require")
        == "postgres://u@h/chat?sslmode=require&connect_timeout=10")
    #expect(
      PostgresConnection.withConnectTimeout("postgres://u@h/chat?connect_timeout=3")
        == "postgres://u@h/chat?connect_timeout=3")
    #expect(
      PostgresConnection.withConnectTimeout("host=h dbname=chat")
        == "host=h dbname=chat connect_timeout=10")
  }

  @Test func byteaIsLowercaseHexAfterBackslashX() {
    #expect(postgresBytea([0x00, 0xAB, 0x7F, 0xFF]) == "\\x00ab7fff")
    #expect(postgresBytea([]) == "\\x")
  }

  @Test func errorsSayWhetherToReconnectOrRunAgain() {
    #expect(PostgresError(message: "", sqlState: "08006").isConnectionLost)
    #expect(PostgresError(message: "", sqlState: "57P01").isConnectionLost)
    #expect(!PostgresError(message: "", sqlState: "23505").isConnectionLost)
    #expect(PostgresError(message: "", sqlState: "23505").isConflict)
    #expect(PostgresError(message: "", sqlState: "40001").isConflict)
    #expect(PostgresError(message: "", sqlState: "40P01").isConflict)
    #expect(!PostgresError(message: "", sqlState: "42601").isConflict)
    #expect(!PostgresError(message: "", sqlState: nil).isConnectionLost)
  }

  /// libpq for real: nothing listens on port 1, so the connection fails, as a lost one (class
  /// 08), with libpq's reason and no password in it.
  @Test func connectingWhereNothingListensIsAConnectionErrorWithLibpqsReason() {
    do {
      _ = try PostgresConnection(
        url: "postgres://someone:secret-word@127.0.0.1:1/chat?connect_timeout=5")
      Issue.record("connected to port 1")
    } catch {
      #expect(error.isConnectionLost)
      #expect(error.message.contains("127.0.0.1"))
      #expect(!error.message.contains("secret-word"))
    }
  }
}

/// Text arrays: how `chat_post_message` takes its mention candidates and gives back the
/// members and mentions.
@Suite struct PostgresTextArrayTests {
  @Test func everyElementIsQuotedSoNoneReadsAsNullOrSplits() {
    #expect(postgresTextArray([]) == "{}")
    #expect(postgresTextArray(["alice", "null"]) == #"{"alice","null"}"#)
    #expect(postgresTextArray(["a,b", #"q"x"#, #"b\s"#]) == #"{"a,b","q\"x","b\\s"}"#)
  }

  @Test func theOutputFormIsReadBackQuotedOrNot() {
    #expect(postgresTextArrayElements("{}") == [])
    #expect(postgresTextArrayElements("{alice,bob}") == ["alice", "bob"])
    #expect(
      postgresTextArrayElements(#"{"null",NULL,"a,b","q\"x","b\\s"}"#)
        == ["null", "a,b", #"q"x"#, #"b\s"#])
  }
}
