package rounds

import "sync"

// The weights: strong names the concern outright, medium usually does, weak only leans.
const (
	strong = 3
	medium = 2
	weak   = 1
)

// categoryRules is the keyword floor of Categorize, in the phrase language of categories_match.go.
// Read-only after initialisation.
var categoryRules = []categoryRule{
	words(CategorySecurity, strong,
		"sql injection", "injection|injections", "xss", "cross site", "csrf", "ssrf", "path|directory traversal",
		"remote code execution", "rce", "vulnerab*", "exploit*", "attacker|attackers", "malicious", "security",
		"secret|secrets", "credential|credentials", "password|passwords", "api key|keys", "apikey*",
		"private key|keys", "cve", "timing attack|attacks", "constant time", "privilege escalation", "untrusted",
		"unsanitized", "sanitiz*",
		"leak|leaks|leaked|leaking|log|logs|logged|logging the|a|an? _? token|tokens|secret|secrets|key|keys|password|passwords"),
	words(CategorySecurity, medium,
		"auth|authn|authz", "authenticat*", "authoriz*", "permission|permissions", "encrypt*", "decrypt*", "tls",
		"ssl", "certificate|certificates", "hmac", "cors", "brute force", "plaintext", "plain text",
		"escape|escaped|escapes|escaping the? html|input|output|user"),
	words(CategorySecurity, weak, "token|tokens", "hash|hashed|hashing", "crypto*", "escape|escaped|escapes|escaping"),

	words(CategoryErrorHandling, strong,
		"error handling",
		"handle|handles|handled|handling the|this|that|a|an? error|errors|err|failure|failures|exception|exceptions",
		"unhandled", "swallow*",
		"ignor*|discard*|drop*|lost|lose|losing the|this|that|a|an? error|errors|err",
		"error|errors|err is|are? ignored|discarded|dropped|lost|swallowed|unchecked",
		"panic|panics|panicking", "nil pointer", "nil deref*", "wrap|wrapping the|this|that? error|errors|err",
		"errors.is|errors.as|errors.join", "sentinel error|errors", "exception|exceptions", "fmt.errorf"),
	literals(CategoryErrorHandling, strong, "%w", "err != nil", "try/catch", "catch("),
	words(CategoryErrorHandling, medium,
		"err", "recover|recovered|recovers", "catch|catches|catching", "throw|throws|thrown|throwing",
		"return|returns|returning|propagat* an|the|this? error|errors|err",
		"without|no|missing an|a|the? error|errors|err", "error path|paths", "error case|cases"),
	words(CategoryErrorHandling, weak, "error|errors", "fail|fails|failed|failing|failure|failures",
		"retry|retries|retried|retrying", "fallback"),

	words(CategoryValidation, strong,
		"validat*", "sanity check*", "bounds check*", "out of range|bounds", "invalid input", "malformed",
		"negative number|numbers|value|values|count|counts|size|sizes|index|indices|duration|durations",
		"required field|fields|param|params|parameter|parameters|argument|arguments",
		"missing a? check|validation", "user|untrusted|external input", "input check|checks"),
	words(CategoryValidation, medium,
		"check|checks|checking|verify|verifies|ensure|ensures that|whether|if",
		"empty string|strings|slice|slices|list|lists|input|name|names|value|values|array|arrays|map|maps|id|ids",
		"nil check|checks|input|argument|arguments|map|maps|slice|slices",
		"handle|handles|handling the _? case", "reject*", "guard against|clause", "clamp*",
		"max|maximum|min|minimum length|size|value", "invalid", "bounds", "allowlist", "allow list", "whitelist"),
	words(CategoryValidation, weak, "range", "too long|large|big|short|small", "edge case|cases", "input|inputs"),

	words(CategoryTypeSafety, strong,
		"type safe|safety", "typesafe", "type assertion|assertions", "unchecked type? assertion|assertions",
		"type mismatch|error|errors|check|checks|checking|conversion|conversions|coercion", "unsafe cast|casts",
		"stringly typed", "typed constant|constants|enum|enums|string|strings|error|errors|id|ids", "untyped",
		"implicit conversion|conversions", "integer|int overflow", "non null assertion|assertions",
		"use|prefer|introduce a dedicated|named|custom|distinct? type|types", "generics",
		"generic function|functions|type|types|parameter|parameters|constraint|constraints|helper|version",
		"enum|enums", "cast|casts|casting|casted"),
	literals(CategoryTypeSafety, strong, "interface{}", "`any`"),
	words(CategoryTypeSafety, medium, "nullable", "reflect|reflection", "wrong|right|correct type", "unsafe",
		"int|int8|int16|int32|int64|uint|uint8|uint16|uint32|uint64|float32|float64"),
	words(CategoryTypeSafety, weak, "type|types", "optional", "overflow", "truncat*", "conversion|conversions"),

	words(CategoryPerformance, strong,
		"performance", "perf", "slow|slower|slowly|slowness|slowdown", "allocat*", "quadratic", "hot path|loop",
		"inefficien*",
		"unnecessary|extra|redundant copy|copies|allocation|allocations|roundtrip|roundtrips|queries|call|calls",
		"latency", "throughput", "preallocat*", "memory usage|leak|leaks|footprint|pressure", "big o",
		"lock contention"),
	literals(CategoryPerformance, strong, "n+1", "o(n^2)", "o(n2)", "o(n²)", "o(n*m)", "o(n * m)"),
	words(CategoryPerformance, medium,
		"cache|caches|cached|caching", "expensive", "faster", "speed", "linear|logarithmic time", "in a tight? loop",
		"goroutine leak|leaks", "string concatenation", "strings.builder", "contention", "garbage collect*", "cpu",
		"benchmark*"),
	literals(CategoryPerformance, medium, "o(n)", "o(1)", "o(log n)"),
	words(CategoryPerformance, weak, "memory", "complexity", "buffer|buffered|buffering|buffers",
		"batch|batched|batching", "lazy|lazily", "pool|pooled|pooling", "heap", "every|each iteration|call|request"),

	words(CategoryTesting, strong,
		"test|tests", "unit test|tests", "test case|cases", "testing", "test coverage", "coverage", "untested",
		"regression test|tests", "table driven", "integration test|tests", "e2e", "end to end", "flaky|flakiness",
		"golden file|files", "testify"),
	words(CategoryTesting, medium, "t.run", "t.fatal|t.fatalf|t.error|t.errorf", "assert*",
		"mock|mocks|mocking|mocked", "stub|stubs", "fixture|fixtures", "testdata"),
	words(CategoryTesting, weak, "cover|covered|covers", "benchmark*"),

	words(CategoryArchitecture, strong,
		"architecture", "architectural", "abstraction|abstractions", "coupled|coupling", "separation of concerns",
		"single responsibility",
		"belong|belongs in|to the|a|another? _? package|layer|module|service|file",
		"circular import|imports|dependency|dependencies", "dependency injection",
		"global state|variable|variables|singleton", "god object|class", "layering",
		"api surface|design|boundary|boundaries", "leaky"),
	words(CategoryArchitecture, medium,
		"design flaw|flaws|issue|issues|problem|problems|smell|smells", "layer|layers",
		"responsibility|responsibilities", "refactor*", "singleton|singletons", "duplicat*", "copy paste*",
		"copypast*", "move|moving|moved this|it|that|these? to|into", "move|moving|moved this|it|that|these? out of",
		"split|splitting this|it? into|up", "extract this|it? into|to a? helper|function|method|package|type",
		"public api", "backward|backwards compat*", "breaking change|changes"),
	words(CategoryArchitecture, weak, "design", "dependency|dependencies", "package|packages", "module|modules",
		"interface|interfaces", "boundary|boundaries", "helper|helpers"),

	words(CategoryNaming, strong,
		"renam*", "naming", "stutter*",
		"misleading|confusing|unclear|ambiguous|vague|generic|better|clearer|descriptive|shorter|longer name|names",
		"variable|function|method|field|parameter|param|package|type|struct|constant|file|receiver|flag name|names",
		"name|names is|are|should|could|doesn't|isn't|does", "camelcase", "camel case", "snake_case", "snake case",
		"pascalcase", "pascal case", "abbreviat*"),
	words(CategoryNaming, medium, "identifier|identifiers", "name|named|names"),
	words(CategoryNaming, weak, "typo|typos", "spell*", "prefix*", "suffix*"),

	words(CategoryDocumentation, strong,
		"documentation", "doc|docs", "doc comment|comments", "doccomment*", "godoc", "docstring|docstrings", "jsdoc",
		"javadoc", "outdated|stale|wrong|misleading|incorrect|missing doc? comment|comments",
		"add|update|fix a|the? comment|comments", "doc|comment|comments says|claims|said",
		"comment|comments is|are wrong|outdated|stale|misleading", "typo in the comment|doc|docs|docstring|readme"),
	words(CategoryDocumentation, medium, "readme", "changelog", "document|documented|documenting|documents",
		"undocumented"),
	words(CategoryDocumentation, weak, "comment|comments", "explain*", "example|examples", "usage", "mention*",
		"describ*"),

	words(CategoryStyle, strong,
		"style", "styling", "gofmt", "goimports", "gofumpt", "prettier", "eslint", "rustfmt",
		"lint|linter|linters|linting", "formatting|formatted|formatter", "indent*", "whitespace",
		"trailing space|spaces|comma|commas|whitespace", "blank line|lines", "line length", "long line|lines",
		"import|imports order|ordering|grouping", "unidiomatic", "magic number|numbers|value|values|string|strings",
		"named constant|constants"),
	words(CategoryStyle, medium,
		"format", "idiomatic", "nit|nits", "nitpick", "readab*", "simplif*", "redundant", "unused", "dead code",
		"early return", "shadow*", "inconsistent", "consistency", "consistent", "brace|braces",
		"semicolon|semicolons", "one liner", "oneliner", "verbose"),
	words(CategoryStyle, weak, "unnecessary", "nested", "boilerplate", "cleaner"),
}

// categoryPhrases indexes categoryRules, built on the first Categorize rather than at program
// start (a millisecond or two and 135 KB that `prmonitor version` or `check` never need). Read-only
// once built.
var categoryPhrases = sync.OnceValue(func() *phraseIndex { return buildPhraseIndex(categoryRules) })
