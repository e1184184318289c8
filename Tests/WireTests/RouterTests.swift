import Testing

@testable import Wire

@Suite struct RouterTests {
  private func router() -> Router {
    var router = Router()
    router.get("/v1/conversations/{id}/messages") { request in
      .text("messages of \(request.pathParameters["id"] ?? "?")")
    }
    router.post("/v1/conversations/{id}/messages") { _ in .text("posted") }
    router.get("/v1/conversations/{id}") { request in .text("one \(request.pathParameters["id"]!)")
    }
    router.get("/v1/conversations/search") { _ in .text("search") }
    router.get("/") { _ in .text("root") }
    return router
  }

  @Test func pathParametersArePercentDecoded() async {
    let response = await router().handle(
      HTTPRequest(method: .get, target: "/v1/conversations/a%20b/messages?limit=5"))
    #expect(response.body == Array("messages of a b".utf8))
  }

  @Test func literalSegmentsWinOverParameters() async {
    let response = await router().handle(
      HTTPRequest(method: .get, target: "/v1/conversations/search"))
    #expect(response.body == Array("search".utf8))
  }

  @Test func unknownPathIs404WithTheErrorShape() async {
    let response = await router().handle(HTTPRequest(method: .get, target: "/v2/nothing"))
    #expect(response.status == .notFound)
    #expect(String(decoding: response.body, as: UTF8.self).contains("\"code\":\"not_found\""))
  }

  @Test func knownPathWithAnotherMethodIs405WithAllow() async {
    let response = await router().handle(
      HTTPRequest(method: .delete, target: "/v1/conversations/c/messages"))
    #expect(response.status == .methodNotAllowed)
    #expect(response.headers["Allow"]?.contains("GET") == true)
    #expect(response.headers["Allow"]?.contains("POST") == true)
  }

  @Test func headIsServedByTheGetRoute() async {
    let response = await router().handle(HTTPRequest(method: .head, target: "/"))
    #expect(response.status == .ok)
  }

  @Test func queryParametersAreDecoded() {
    let request = HTTPRequest(method: .get, target: "/x?a=1&b=x+y%21&a=2&flag&bad=%zz")
    #expect(request.queryParameters == ["a": "1", "b": "x y!", "flag": ""])
    #expect(request.path == "/x")
  }

  @Test func headerLookupIgnoresCase() {
    let headers: HTTPHeaders = ["Content-Type": "a", "connection": "keep-alive, Upgrade"]
    #expect(headers["content-type"] == "a")
    #expect(headers.containsToken("upgrade", in: "Connection"))
  }
}
