/// A page as the StackExchange API sends it, kept for tests that decode the real shape or
/// check that the fixture server serves it.
public enum Fixtures {
  /// A `/questions` page of five questions in the shape of a real API response: HTML-escaped
  /// titles and names, and `accepted_answer_id`/`last_edit_date` only on the question they apply
  /// to. The fixture server's first five questions are these.
  public static let questionsPage = #"""
    {
      "items": [
        {
          "tags": ["swift", "concurrency", "nsoperationqueue"],
          "owner": {
            "account_id": 1102934,
            "reputation": 4821,
            "user_id": 1290384,
            "user_type": "registered",
            "profile_image": "https://www.gravatar.com/avatar/0a1b2c3d?s=256&d=identicon&r=PG",
            "display_name": "Ana Ferreira",
            "link": "https://stackoverflow.com/users/1290384/ana-ferreira"
          },
          "is_answered": false,
          "view_count": 12,
          "answer_count": 0,
          "score": 0,
          "last_activity_date": 1763750110,
          "creation_date": 1763750110,
          "question_id": 79834101,
          "content_license": "CC BY-SA 4.0",
          "link": "https://stackoverflow.com/questions/79834101/why-does-my-operationqueue-never-finish-when-i-override-isfinished",
          "title": "Why does my OperationQueue never finish when I override &quot;isFinished&quot;?"
        },
        {
          "tags": ["swift", "async-await", "urlsession"],
          "owner": {
            "account_id": 2203945,
            "reputation": 1,
            "user_id": 2390485,
            "user_type": "registered",
            "profile_image": "https://lh3.googleusercontent.com/a/example=k-s256",
            "display_name": "Jörg M&#252;ller",
            "link": "https://stackoverflow.com/users/2390485/j%c3%b6rg-m%c3%bcller"
          },
          "is_answered": true,
          "view_count": 57,
          "accepted_answer_id": 79834188,
          "answer_count": 2,
          "score": 3,
          "last_activity_date": 1763749874,
          "creation_date": 1763748001,
          "last_edit_date": 1763749500,
          "question_id": 79834077,
          "content_license": "CC BY-SA 4.0",
          "link": "https://stackoverflow.com/questions/79834077/cancel-a-urlsession-data-task-when-the-swift-task-is-cancelled",
          "title": "Cancel a URLSession data task when the Swift Task is cancelled"
        },
        {
          "tags": ["ios", "swift", "core-data"],
          "owner": {
            "account_id": 3304956,
            "reputation": 231,
            "user_id": 3491586,
            "user_type": "registered",
            "profile_image": "https://i.sstatic.net/abcde.png?s=256",
            "display_name": "dev_kay",
            "link": "https://stackoverflow.com/users/3491586/dev-kay"
          },
          "is_answered": false,
          "view_count": 8,
          "answer_count": 1,
          "score": -1,
          "last_activity_date": 1763747722,
          "creation_date": 1763747300,
          "question_id": 79834052,
          "content_license": "CC BY-SA 4.0",
          "link": "https://stackoverflow.com/questions/79834052/nspersistentcontainer-performbackgroundtask-vs-operationqueue",
          "title": "NSPersistentContainer performBackgroundTask vs OperationQueue &amp; priorities"
        },
        {
          "tags": ["python", "pandas"],
          "owner": {
            "account_id": 4405967,
            "reputation": 17,
            "user_id": 4592687,
            "user_type": "registered",
            "profile_image": "https://www.gravatar.com/avatar/9f8e7d6c?s=256&d=identicon&r=PG&f=y&so-version=2",
            "display_name": "Priya",
            "link": "https://stackoverflow.com/users/4592687/priya"
          },
          "is_answered": false,
          "view_count": 21,
          "answer_count": 0,
          "score": 1,
          "last_activity_date": 1763747001,
          "creation_date": 1763747001,
          "question_id": 79834033,
          "content_license": "CC BY-SA 4.0",
          "link": "https://stackoverflow.com/questions/79834033/how-to-group-by-two-columns-and-keep-the-first-row",
          "title": "How to group by two columns and keep the first row"
        },
        {
          "tags": ["javascript", "regex"],
          "owner": {
            "account_id": 5506978,
            "reputation": 980,
            "user_id": 5693798,
            "user_type": "registered",
            "profile_image": "https://i.sstatic.net/fghij.jpg?s=256",
            "display_name": "Tomás",
            "link": "https://stackoverflow.com/users/5693798/tom%c3%a1s"
          },
          "is_answered": true,
          "view_count": 140,
          "answer_count": 3,
          "score": 5,
          "last_activity_date": 1763746522,
          "creation_date": 1763741019,
          "question_id": 79833940,
          "content_license": "CC BY-SA 4.0",
          "link": "https://stackoverflow.com/questions/79833940/regex-to-match-lt-tag-gt-but-not-lt-tag-gt",
          "title": "Regex to match &lt;tag&gt; but not &lt;/tag&gt; &#8211; what am I missing?"
        }
      ],
      "has_more": true,
      "quota_max": 300,
      "quota_remaining": 287
    }
    """#
}
