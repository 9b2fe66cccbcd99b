import StackExchange
import Testing

@Test func deletedOwnerDecodesWithOnlyTypeAndName() throws {
  let owner = try decode(
    QuestionOwner.self, from: #"{"user_type":"does_not_exist","display_name":"user123"}"#)
  #expect(owner.userType == .doesNotExist)
  #expect(owner.displayName == "user123")
  #expect(owner.rawDisplayName == "user123")
  #expect(owner.accountID == nil)
  #expect(owner.userID == nil)
  #expect(owner.reputation == nil)
  #expect(owner.acceptRate == nil)
  #expect(owner.link == nil)
  #expect(owner.profileImage == nil)
}

/// A link or avatar that is not a URL is dropped, not the page: it was the author's, and the
/// question is still worth showing.
@Test func linksThatAreNotURLsDecodeAsNil() throws {
  let owner = try decode(
    QuestionOwner.self,
    from: #"{"display_name":"x","link":"","profile_image":"","user_id":7}"#)
  #expect(owner.link == nil)
  #expect(owner.profileImage == nil)
  #expect(owner.userID == 7)

  let linked = try decode(
    QuestionOwner.self,
    from: #"{"link":"https://stackoverflow.com/users/7","profile_image":"https://a.example/p.png"}"#
  )
  #expect(linked.link?.absoluteString == "https://stackoverflow.com/users/7")
  #expect(linked.profileImage?.absoluteString == "https://a.example/p.png")
}

@Test func ownerWithNoFieldsDecodes() throws {
  let owner = try decode(QuestionOwner.self, from: "{}")
  #expect(owner.userType == nil)
  #expect(owner.displayName == nil)
}

@Test(arguments: [
  ("registered", QuestionOwner.UserType.registered),
  ("unregistered", .unregistered),
  ("moderator", .moderator),
  ("team_admin", .teamAdmin),
  ("does_not_exist", .doesNotExist),
])
func knownUserTypesDecodeToTheirCase(raw: String, expected: QuestionOwner.UserType) throws {
  let owner = try decode(QuestionOwner.self, from: #"{"user_type": "\#(raw)"}"#)
  #expect(owner.userType == expected)
  #expect(owner.userType?.rawValue == raw)
  if case .unknown = try #require(owner.userType) {
    Issue.record("decoded \(raw) as .unknown")
  }
}

@Test func unknownUserTypeDecodesAndKeepsItsValue() throws {
  let owner = try decode(
    QuestionOwner.self, from: #"{"user_type": "community_bot", "display_name": "Community"}"#)
  #expect(owner.userType == .unknown("community_bot"))
  #expect(owner.userType?.rawValue == "community_bot")
  #expect(owner.displayName == "Community")
}

@Test func unknownUserTypeEqualsTheKnownCaseWithTheSameValue() {
  #expect(QuestionOwner.UserType.unknown("moderator") == .moderator)
  #expect(Set([QuestionOwner.UserType.unknown("moderator"), .moderator]).count == 1)
  #expect(QuestionOwner.UserType.unknown("bot") != .unknown("robot"))
}

@Test func escapedDisplayNameIsDecodedForDisplayAndKeptRaw() throws {
  let owner = try decode(
    QuestionOwner.self, from: #"{"display_name": "Zo&#235; &amp; &quot;Kai&quot;"}"#)
  #expect(owner.rawDisplayName == "Zo&#235; &amp; &quot;Kai&quot;")
  #expect(owner.displayName == "Zoë & \"Kai\"")
}
