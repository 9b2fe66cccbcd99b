extension StackExchangeFixture {
  private typealias Owner = FixtureQuestion.Owner

  private static let anaFerreira = Owner.registered(
    accountId: 1_102_934, reputation: 4821, userId: 1_290_384,
    profileImage: "https://www.gravatar.com/avatar/0a1b2c3d?s=256&d=identicon&r=PG",
    displayName: "Ana Ferreira", slug: "ana-ferreira")
  private static let jorgMuller = Owner.registered(
    accountId: 2_203_945, reputation: 1, userId: 2_390_485,
    profileImage: "https://lh3.googleusercontent.com/a/example=k-s256",
    displayName: "Jörg M&#252;ller", slug: "j%c3%b6rg-m%c3%bcller")
  private static let devKay = Owner.registered(
    accountId: 3_304_956, reputation: 231, userId: 3_491_586,
    profileImage: "https://i.sstatic.net/abcde.png?s=256", displayName: "dev_kay",
    slug: "dev-kay")
  private static let priya = Owner.registered(
    accountId: 4_405_967, reputation: 17, userId: 4_592_687,
    profileImage:
      "https://www.gravatar.com/avatar/9f8e7d6c?s=256&d=identicon&r=PG&f=y&so-version=2",
    displayName: "Priya", slug: "priya")
  private static let tomas = Owner.registered(
    accountId: 5_506_978, reputation: 980, userId: 5_693_798,
    profileImage: "https://i.sstatic.net/fghij.jpg?s=256", displayName: "Tomás",
    slug: "tom%c3%a1s")

  /// Invented questions in the shape of the real API, newest activity first. The first five
  /// are the ones in `shared/fixtures/questions-page.json`.
  static let questions: [FixtureQuestion] = [
    FixtureQuestion(
      tags: ["swift", "concurrency", "nsoperationqueue"], owner: anaFerreira, isAnswered: false,
      viewCount: 12, answerCount: 0, score: 0, lastActivityDate: 1_763_750_110,
      creationDate: 1_763_750_110, questionId: 79_834_101, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79834101/why-does-my-operationqueue-never-finish-when-i-override-isfinished",
      title: "Why does my OperationQueue never finish when I override &quot;isFinished&quot;?"),
    FixtureQuestion(
      tags: ["swift", "async-await", "urlsession"], owner: jorgMuller, isAnswered: true,
      viewCount: 57, acceptedAnswerId: 79_834_188, answerCount: 2, score: 3,
      lastActivityDate: 1_763_749_874, creationDate: 1_763_748_001,
      lastEditDate: 1_763_749_500, questionId: 79_834_077, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79834077/cancel-a-urlsession-data-task-when-the-swift-task-is-cancelled",
      title: "Cancel a URLSession data task when the Swift Task is cancelled"),
    FixtureQuestion(
      tags: ["ios", "swift", "core-data"], owner: devKay, isAnswered: false, viewCount: 8,
      answerCount: 1, score: -1, lastActivityDate: 1_763_747_722, creationDate: 1_763_747_300,
      questionId: 79_834_052, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79834052/nspersistentcontainer-performbackgroundtask-vs-operationqueue",
      title: "NSPersistentContainer performBackgroundTask vs OperationQueue &amp; priorities"),
    FixtureQuestion(
      tags: ["python", "pandas"], owner: priya, isAnswered: false, viewCount: 21, answerCount: 0,
      score: 1, lastActivityDate: 1_763_747_001, creationDate: 1_763_747_001,
      questionId: 79_834_033, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79834033/how-to-group-by-two-columns-and-keep-the-first-row",
      title: "How to group by two columns and keep the first row"),
    FixtureQuestion(
      tags: ["javascript", "regex"], owner: tomas, isAnswered: true, viewCount: 140,
      answerCount: 3, score: 5, lastActivityDate: 1_763_746_522, creationDate: 1_763_741_019,
      questionId: 79_833_940, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833940/regex-to-match-lt-tag-gt-but-not-lt-tag-gt",
      title: "Regex to match &lt;tag&gt; but not &lt;/tag&gt; &#8211; what am I missing?"),
    FixtureQuestion(
      tags: ["swift", "swift6", "swift-concurrency"],
      owner: .registered(
        accountId: 6_602_117, reputation: 3310, userId: 6_781_204,
        profileImage: "https://i.sstatic.net/klmno.png?s=256", displayName: "&#321;ukasz Nowak",
        slug: "%c5%82ukasz-nowak"),
      isAnswered: true, viewCount: 96, acceptedAnswerId: 79_833_990, answerCount: 2, score: 4,
      lastActivityDate: 1_763_745_980, creationDate: 1_763_744_100,
      lastEditDate: 1_763_745_800, questionId: 79_833_912, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833912/swift-6-sending-self-risks-causing-data-races-in-a-timer-callback",
      title:
        "Swift 6: &quot;Sending &#39;self&#39; risks causing data races&quot; in a Timer callback"),
    FixtureQuestion(
      tags: ["c++", "templates", "lambda"],
      owner: .registered(
        accountId: 7_703_228, reputation: 612, userId: 7_890_315,
        profileImage: "https://www.gravatar.com/avatar/1b2c3d4e?s=256&d=identicon&r=PG",
        displayName: "Ren&#xE9; Dubois", slug: "ren%c3%a9-dubois"),
      isAnswered: false, viewCount: 43, answerCount: 1, score: -2,
      lastActivityDate: 1_763_745_412, creationDate: 1_763_743_020, closedDate: 1_763_745_412,
      closedReason: "Duplicate", questionId: 79_833_870, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833870/c-template-argument-typename-t-not-deduced-from-a-lambda",
      title: "C++ template argument &lt;typename T&gt; not deduced from a lambda"),
    FixtureQuestion(
      tags: ["docker", "docker-compose", "linux"], owner: .deleted(displayName: "user123"),
      isAnswered: false, viewCount: 15, answerCount: 0, score: 0,
      lastActivityDate: 1_763_744_870, creationDate: 1_763_744_870, questionId: 79_833_811,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833811/docker-compose-service-cant-reach-host-docker-internal-on-linux",
      title: "docker compose: service can&#39;t reach host.docker.internal on Linux"),
    FixtureQuestion(
      tags: ["rust", "borrow-checker"],
      owner: .registered(
        accountId: 8_804_339, reputation: 1544, userId: 8_991_426,
        profileImage: "https://i.sstatic.net/pqrst.jpg?s=256",
        displayName: "S&#248;ren Kj&#230;r", slug: "s%c3%b8ren-kj%c3%a6r"),
      isAnswered: true, viewCount: 188, acceptedAnswerId: 79_833_801, answerCount: 1, score: 7,
      lastActivityDate: 1_763_744_301, creationDate: 1_763_740_555,
      lastEditDate: 1_763_741_002, questionId: 79_833_760, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833760/rust-cannot-borrow-self-as-mutable-more-than-once-in-a-loop",
      title: "Rust: cannot borrow &#96;*self&#96; as mutable more than once in a loop"),
    FixtureQuestion(
      tags: ["kotlin", "kotlin-coroutines"],
      owner: .registered(
        accountId: 9_905_440, reputation: 88, userId: 10_092_537,
        profileImage: "https://lh3.googleusercontent.com/a/example2=k-s256",
        displayName: "mkotlin_dev", slug: "mkotlin-dev"),
      isAnswered: true, viewCount: 61, answerCount: 1, score: 2,
      lastActivityDate: 1_763_743_650, creationDate: 1_763_743_310, questionId: 79_833_702,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833702/kotlin-coroutines-withtimeout-doesnt-cancel-a-blocking-call",
      title: "Kotlin coroutines: withTimeout doesn&#39;t cancel a blocking call"),
    FixtureQuestion(
      tags: ["xml", "escaping"],
      owner: .registered(
        accountId: 11_006_551, reputation: 402, userId: 11_193_648,
        profileImage: "https://www.gravatar.com/avatar/2c3d4e5f?s=256&d=identicon&r=PG",
        displayName: "Chlo&#xE9; Martin", slug: "chlo%c3%a9-martin"),
      isAnswered: true, viewCount: 30, answerCount: 1, score: -1,
      lastActivityDate: 1_763_742_990, creationDate: 1_763_741_800, closedDate: 1_763_742_990,
      closedReason: "Duplicate", questionId: 79_833_655, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833655/how-do-i-escape-and-in-an-xml-attribute",
      title: "How do I escape &quot;&amp;&quot; and &quot;&lt;&quot; in an XML attribute?"),
    FixtureQuestion(
      tags: ["bash", "shell"],
      owner: .registered(
        accountId: 12_107_662, reputation: 2210, userId: 12_294_759,
        profileImage: "https://i.sstatic.net/uvwxy.png?s=256",
        displayName: "Siobh&#225;n O&#39;Brien", slug: "siobh%c3%a1n-obrien"),
      isAnswered: true, viewCount: 230, acceptedAnswerId: 79_833_640, answerCount: 3, score: 6,
      lastActivityDate: 1_763_742_411, creationDate: 1_763_739_020,
      lastEditDate: 1_763_739_300, questionId: 79_833_610, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833610/bash-read-lines-with-spaces-in-a-for-loop",
      title: "Bash: read lines with spaces in a &quot;for&quot; loop"),
    FixtureQuestion(
      tags: ["ios", "swift", "urlsession", "background-task"],
      owner: .registered(
        accountId: 13_208_773, reputation: 356, userId: 13_395_860,
        profileImage: "https://www.gravatar.com/avatar/3d4e5f60?s=256&d=identicon&r=PG",
        displayName: "Kenji Watanabe", slug: "kenji-watanabe"),
      isAnswered: false, viewCount: 34, answerCount: 0, score: 1,
      lastActivityDate: 1_763_741_876, creationDate: 1_763_738_402,
      lastEditDate: 1_763_741_876, questionId: 79_833_577, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833577/urlsession-background-download-never-calls-didfinishdownloadingto-on-ios-18",
      title: "URLSession background download never calls didFinishDownloadingTo on iOS 18"),
    FixtureQuestion(
      tags: ["postgresql", "upsert"],
      owner: .registered(
        accountId: 14_309_884, reputation: 7730, userId: 14_496_971,
        profileImage: "https://i.sstatic.net/zabcd.jpg?s=256", displayName: "db_nerd",
        slug: "db-nerd"),
      isAnswered: true, viewCount: 77, acceptedAnswerId: 79_833_566, answerCount: 1, score: 3,
      lastActivityDate: 1_763_741_002, creationDate: 1_763_740_080, questionId: 79_833_540,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833540/postgresql-on-conflict-do-update-with-a-partial-unique-index",
      title: "PostgreSQL: ON CONFLICT DO UPDATE with a partial unique index"),
    FixtureQuestion(
      tags: ["go", "goroutine", "channel"],
      owner: .registered(
        accountId: 15_410_995, reputation: 1203, userId: 15_598_082,
        profileImage: "https://www.gravatar.com/avatar/4e5f6071?s=256&d=identicon&r=PG",
        displayName: "Amara Okafor", slug: "amara-okafor"),
      isAnswered: true, viewCount: 142, answerCount: 2, score: 5,
      lastActivityDate: 1_763_740_120, creationDate: 1_763_736_644,
      lastEditDate: 1_763_737_000, questionId: 79_833_498, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833498/go-goroutine-leak-when-the-context-is-cancelled-before-done",
      title: "Go: goroutine leak when the context is cancelled before &lt;-done"),
    FixtureQuestion(
      tags: ["swiftui", "macos"],
      owner: Owner(
        reputation: 1, userId: 99_012_345, userType: "unregistered",
        profileImage:
          "https://www.gravatar.com/avatar/5e6f7a8b?s=256&d=identicon&r=PG&f=y&so-version=2",
        displayName: "Felix", link: "https://stackoverflow.com/users/99012345/felix"),
      isAnswered: false, viewCount: 9, answerCount: 0, score: 0,
      lastActivityDate: 1_763_739_302, creationDate: 1_763_739_302, questionId: 79_833_461,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833461/swiftui-list-selection-ondelete-dont-work-together-on-macos",
      title: "SwiftUI List selection &amp; onDelete don&#39;t work together on macOS"),
    FixtureQuestion(
      tags: ["typescript"],
      owner: .registered(
        accountId: 16_512_006, reputation: 45, userId: 16_699_193,
        profileImage: "https://i.sstatic.net/efghi.png?s=256",
        displayName: "Lena Schr&#246;der", slug: "lena-schr%c3%b6der"),
      isAnswered: false, viewCount: 25, answerCount: 0, score: -3,
      lastActivityDate: 1_763_738_640, creationDate: 1_763_735_100, closedDate: 1_763_738_640,
      closedReason: "Duplicate", questionId: 79_833_420, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833420/type-string-undefined-is-not-assignable-to-type-string",
      title: "Type &#39;string | undefined&#39; is not assignable to type &#39;string&#39;"),
    FixtureQuestion(
      tags: ["python", "pandas", "csv"], owner: priya, isAnswered: true, viewCount: 310,
      acceptedAnswerId: 79_833_399, answerCount: 1, score: 9, lastActivityDate: 1_763_737_815,
      creationDate: 1_763_734_902, lastEditDate: 1_763_735_000, questionId: 79_833_388,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833388/pandas-read-csv-turns-na-into-nan-how-to-keep-it-as-a-string",
      title: "pandas read_csv turns &quot;NA&quot; into NaN &#8211; how to keep it as a string?"),
    FixtureQuestion(
      tags: ["java", "completable-future"],
      owner: .registered(
        accountId: 17_613_117, reputation: 2987, userId: 17_800_204,
        profileImage: "https://www.gravatar.com/avatar/6f7a8b9c?s=256&d=identicon&r=PG",
        displayName: "Mateusz W&#xF3;jcik", slug: "mateusz-w%c3%b3jcik"),
      isAnswered: true, viewCount: 58, answerCount: 1, score: 2,
      lastActivityDate: 1_763_736_960, creationDate: 1_763_733_333, questionId: 79_833_350,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833350/completablefuture-allof-join-loses-the-exception-of-the-failed-future",
      title: "CompletableFuture.allOf(...).join() loses the exception of the failed future"),
    FixtureQuestion(
      tags: ["git", "git-rebase"], owner: anaFerreira, isAnswered: true, viewCount: 402,
      acceptedAnswerId: 79_833_320, answerCount: 2, score: 11, lastActivityDate: 1_763_736_001,
      creationDate: 1_763_731_201, lastEditDate: 1_763_731_500, questionId: 79_833_301,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833301/git-rebase-onto-what-does-upstream-mean-here",
      title: "git rebase --onto: what does &lt;upstream&gt; mean here?"),
    FixtureQuestion(
      tags: ["nginx", "reverse-proxy"], owner: .deleted(displayName: "user4471982"),
      isAnswered: false, viewCount: 11, answerCount: 0, score: 0,
      lastActivityDate: 1_763_735_120, creationDate: 1_763_735_120, questionId: 79_833_267,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833267/nginx-returns-502-behind-a-load-balancer-only-for-large-responses",
      title: "Nginx returns 502 behind a load balancer only for large responses"),
    FixtureQuestion(
      tags: ["swift", "grand-central-dispatch"], owner: devKay, isAnswered: true, viewCount: 88,
      answerCount: 2, score: -1, lastActivityDate: 1_763_734_260, creationDate: 1_763_730_055,
      closedDate: 1_763_734_260, closedReason: "Opinion-based", questionId: 79_833_230,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833230/is-dispatchqueue-main-sync-from-a-background-thread-ever-ok",
      title: "Is DispatchQueue.main.sync from a background thread ever OK?"),
    FixtureQuestion(
      tags: ["javascript", "floating-point"],
      owner: .registered(
        accountId: 18_714_228, reputation: 3, userId: 18_901_315,
        profileImage: "https://lh3.googleusercontent.com/a/example3=k-s256",
        displayName: "newbie_js", slug: "newbie-js"),
      isAnswered: true, viewCount: 74, answerCount: 1, score: -4,
      lastActivityDate: 1_763_733_302, creationDate: 1_763_729_900, closedDate: 1_763_730_100,
      closedReason: "Duplicate", questionId: 79_833_199, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833199/why-is-0-1-0-2-0-3-in-javascript",
      title: "Why is 0.1 + 0.2 !== 0.3 in JavaScript?"),
    FixtureQuestion(
      tags: ["css", "css-grid"], owner: tomas, isAnswered: true, viewCount: 120,
      acceptedAnswerId: 79_833_170, answerCount: 1, score: 4, lastActivityDate: 1_763_732_410,
      creationDate: 1_763_728_812, questionId: 79_833_155, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833155/css-grid-make-the-items-of-the-last-row-span-the-remaining-columns",
      title: "CSS grid: make the items of the last row span the remaining columns"),
    FixtureQuestion(
      tags: ["c", "linux", "sockets", "epoll"],
      owner: .registered(
        accountId: 19_815_339, reputation: 5120, userId: 20_002_426,
        profileImage: "https://i.sstatic.net/jklmn.png?s=256",
        displayName: "&#216;yvind Hansen", slug: "%c3%b8yvind-hansen"),
      isAnswered: true, viewCount: 97, acceptedAnswerId: 79_833_133, answerCount: 1, score: 6,
      lastActivityDate: 1_763_731_533, creationDate: 1_763_727_650,
      lastEditDate: 1_763_728_000, questionId: 79_833_120, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833120/epoll-wait-reports-epollhup-for-a-socket-i-didnt-close",
      title: "epoll_wait reports EPOLLHUP for a socket I didn&#39;t close"),
    FixtureQuestion(
      tags: ["r", "ggplot2"], owner: jorgMuller, isAnswered: false, viewCount: 19,
      answerCount: 0, score: 1, lastActivityDate: 1_763_730_620, creationDate: 1_763_730_620,
      questionId: 79_833_087, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833087/ggplot2-facet-labels-with-greek-letters-and-subscripts",
      title: "ggplot2 facet labels with Greek letters (&#945;, &#946;) and subscripts"),
    FixtureQuestion(
      tags: ["android", "android-workmanager"],
      owner: .registered(
        accountId: 20_916_440, reputation: 640, userId: 21_103_537,
        profileImage: "https://www.gravatar.com/avatar/7a8b9c0d?s=256&d=identicon&r=PG",
        displayName: "Rahul Verma", slug: "rahul-verma"),
      isAnswered: false, viewCount: 45, answerCount: 1, score: 0,
      lastActivityDate: 1_763_729_774, creationDate: 1_763_726_001, questionId: 79_833_046,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833046/android-workmanager-periodic-work-runs-twice-after-reboot",
      title: "Android WorkManager periodic work runs twice after reboot"),
    FixtureQuestion(
      tags: ["swift", "nsoperationqueue", "nsoperation"],
      owner: .registered(
        accountId: 22_017_551, reputation: 12_840, userId: 22_204_648,
        profileImage: "https://i.sstatic.net/opqrs.jpg?s=256",
        displayName: "Marta Ben&#237;tez", slug: "marta-ben%c3%adtez"),
      isAnswered: true, viewCount: 512, acceptedAnswerId: 79_833_025, answerCount: 2, score: 14,
      lastActivityDate: 1_763_728_903, creationDate: 1_763_724_411,
      lastEditDate: 1_763_725_000, questionId: 79_833_010, contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79833010/operationqueue-with-maxconcurrentoperationcount-1-still-overlaps-my-async-operations",
      title:
        "OperationQueue with maxConcurrentOperationCount = 1 still overlaps my async operations"),
    FixtureQuestion(
      tags: ["c#", "async-await"],
      owner: .registered(
        accountId: 23_118_662, reputation: 733, userId: 23_305_759,
        profileImage: "https://www.gravatar.com/avatar/8b9c0d1e?s=256&d=identicon&r=PG",
        displayName: "Bits &amp; Bytes", slug: "bits-bytes"),
      isAnswered: true, viewCount: 133, answerCount: 2, score: 3,
      lastActivityDate: 1_763_727_990, creationDate: 1_763_723_800, questionId: 79_832_977,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79832977/c-async-void-event-handler-swallows-exceptions-why",
      title: "C#: async void event handler swallows exceptions &#8212; why?"),
    FixtureQuestion(
      tags: ["haskell", "fold"],
      owner: .registered(
        accountId: 24_219_773, reputation: 96, userId: 24_406_860,
        profileImage: "https://i.sstatic.net/tuvwx.png?s=256", displayName: "&#955;-fan",
        slug: "%ce%bb-fan"),
      isAnswered: false, viewCount: 37, answerCount: 0, score: -2,
      lastActivityDate: 1_763_727_004, creationDate: 1_763_722_200, closedDate: 1_763_726_100,
      closedReason: "Needs details or clarity", questionId: 79_832_941,
      contentLicense: "CC BY-SA 4.0",
      link:
        "https://stackoverflow.com/questions/79832941/foldl-vs-foldl-on-a-large-list-in-haskell",
      title: "foldl vs foldl&#39; on a large list in Haskell"),
  ]
}
