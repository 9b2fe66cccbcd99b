import Foundation
import StackExchange
import TestSupport
import Testing

@Test func apiErrorBodyDecodes() throws {
  let error = try decode(
    StackExchangeAPIError.self,
    from: #"{"error_id": 400, "error_message": "site is required", "error_name": "bad_parameter"}"#
  )
  #expect(error.errorID == 400)
  #expect(error.errorMessage == "site is required")
  #expect(error.errorName == "bad_parameter")
  #expect(
    error
      == StackExchangeAPIError(
        errorID: 400, errorMessage: "site is required", errorName: "bad_parameter"))
}

@Test func apiErrorDescriptionIsOneCLILine() throws {
  let error = try decode(
    StackExchangeAPIError.self,
    from: #"{"error_id": 400, "error_message": "site is required", "error_name": "bad_parameter"}"#
  )
  #expect(error.description == "bad_parameter (400): site is required")
  #expect("\(error)" == "bad_parameter (400): site is required")
  #expect(error.localizedDescription == "bad_parameter (400): site is required")
}

@Test func apiErrorDescriptionJoinsMultilineMessages() {
  let error = StackExchangeAPIError(
    errorID: 502, errorMessage: "too many requests\r\nfrom this IP\n",
    errorName: "throttle_violation")
  #expect(error.description == "throttle_violation (502): too many requests from this IP")
}

@Test func bodyWithoutErrorFieldsIsNotAnAPIError() {
  #expect(throws: DecodingError.self) {
    try decode(StackExchangeAPIError.self, from: Fixtures.questionsPage)
  }
}
