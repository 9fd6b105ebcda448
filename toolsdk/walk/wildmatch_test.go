package walk

import "testing"

// wildmatchTests are the cases of git's own wildmatch tests
// (t/t3070-wildmatch.sh), case-sensitive columns: whether text matches
// pattern with WM_PATHNAME, as patterns holding a slash are matched, and
// without, as patterns matching a name alone are.
var wildmatchTests = []struct {
	text, pattern  string
	pathname, name bool
}{
	{`foo`, `foo`, true, true},
	{`foo`, `bar`, false, false},
	{``, ``, true, true},
	{`foo`, `???`, true, true},
	{`foo`, `??`, false, false},
	{`foo`, `*`, true, true},
	{`foo`, `f*`, true, true},
	{`foo`, `*f`, false, false},
	{`foo`, `*foo*`, true, true},
	{`foobar`, `*ob*a*r*`, true, true},
	{`aaaaaaabababab`, `*ab`, true, true},
	{`foo*`, `foo\*`, true, true},
	{`foobar`, `foo\*bar`, false, false},
	{`f\oo`, `f\\oo`, true, true},
	{`ball`, `*[al]?`, true, true},
	{`ten`, `[ten]`, false, false},
	{`ten`, `**[!te]`, true, true},
	{`ten`, `**[!ten]`, false, false},
	{`ten`, `t[a-g]n`, true, true},
	{`ten`, `t[!a-g]n`, false, false},
	{`ton`, `t[!a-g]n`, true, true},
	{`ton`, `t[^a-g]n`, true, true},
	{`a]b`, `a[]]b`, true, true},
	{`a-b`, `a[]-]b`, true, true},
	{`a]b`, `a[]-]b`, true, true},
	{`aab`, `a[]-]b`, false, false},
	{`aab`, `a[]a-]b`, true, true},
	{`]`, `]`, true, true},
	{`foo/baz/bar`, `foo*bar`, false, true},
	{`foo/baz/bar`, `foo**bar`, false, true},
	{`foobazbar`, `foo**bar`, true, true},
	{`foo/baz/bar`, `foo/**/bar`, true, true},
	{`foo/baz/bar`, `foo/**/**/bar`, true, false},
	{`foo/b/a/z/bar`, `foo/**/bar`, true, true},
	{`foo/b/a/z/bar`, `foo/**/**/bar`, true, true},
	{`foo/bar`, `foo/**/bar`, true, false},
	{`foo/bar`, `foo/**/**/bar`, true, false},
	{`foo/bar`, `foo?bar`, false, true},
	{`foo/bar`, `foo[/]bar`, false, true},
	{`foo/bar`, `foo[^a-z]bar`, false, true},
	{`foo/bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`, false, true},
	{`foo-bar`, `f[^eiu][^eiu][^eiu][^eiu][^eiu]r`, true, true},
	{`foo`, `**/foo`, true, false},
	{`XXX/foo`, `**/foo`, true, true},
	{`bar/baz/foo`, `**/foo`, true, true},
	{`bar/baz/foo`, `*/foo`, false, true},
	{`foo/bar/baz`, `**/bar*`, false, true},
	{`deep/foo/bar/baz`, `**/bar/*`, true, true},
	{`deep/foo/bar/baz/`, `**/bar/*`, false, true},
	{`deep/foo/bar/baz/`, `**/bar/**`, true, true},
	{`deep/foo/bar`, `**/bar/*`, false, false},
	{`deep/foo/bar/`, `**/bar/**`, true, true},
	{`foo/bar/baz`, `**/bar**`, false, true},
	{`foo/bar/baz/x`, `*/bar/**`, true, true},
	{`deep/foo/bar/baz/x`, `*/bar/**`, false, true},
	{`deep/foo/bar/baz/x`, `**/bar/*/*`, true, true},
	{`acrt`, `a[c-c]st`, false, false},
	{`acrt`, `a[c-c]rt`, true, true},
	{`]`, `[!]-]`, false, false},
	{`a`, `[!]-]`, true, true},
	{``, `\`, false, false},
	{`\`, `\`, false, false},
	{`XXX/\`, `*/\`, false, false},
	{`XXX/\`, `*/\\`, true, true},
	{`foo`, `foo`, true, true},
	{`@foo`, `@foo`, true, true},
	{`foo`, `@foo`, false, false},
	{`[ab]`, `\[ab]`, true, true},
	{`[ab]`, `[[]ab]`, true, true},
	{`[ab]`, `[[:]ab]`, true, true},
	{`[ab]`, `[[::]ab]`, false, false},
	{`[ab]`, `[[:digit]ab]`, true, true},
	{`[ab]`, `[\[:]ab]`, true, true},
	{`?a?b`, `\??\?b`, true, true},
	{`abc`, `\a\b\c`, true, true},
	{`foo`, ``, false, false},
	{`foo/bar/baz/to`, `**/t[o]`, true, true},
	{`a1B`, `[[:alpha:]][[:digit:]][[:upper:]]`, true, true},
	{`a`, `[[:digit:][:upper:][:space:]]`, false, false},
	{`A`, `[[:digit:][:upper:][:space:]]`, true, true},
	{`1`, `[[:digit:][:upper:][:space:]]`, true, true},
	{`1`, `[[:digit:][:upper:][:spaci:]]`, false, false},
	{` `, `[[:digit:][:upper:][:space:]]`, true, true},
	{`.`, `[[:digit:][:upper:][:space:]]`, false, false},
	{`.`, `[[:digit:][:punct:][:space:]]`, true, true},
	{`5`, `[[:xdigit:]]`, true, true},
	{`f`, `[[:xdigit:]]`, true, true},
	{`D`, `[[:xdigit:]]`, true, true},
	{`_`, `[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]`, true, true},
	{`.`, `[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]`, true, true},
	{`5`, `[a-c[:digit:]x-z]`, true, true},
	{`b`, `[a-c[:digit:]x-z]`, true, true},
	{`y`, `[a-c[:digit:]x-z]`, true, true},
	{`q`, `[a-c[:digit:]x-z]`, false, false},
	{`]`, `[\\-^]`, true, true},
	{`[`, `[\\-^]`, false, false},
	{`-`, `[\-_]`, true, true},
	{`]`, `[\]]`, true, true},
	{`\]`, `[\]]`, false, false},
	{`\`, `[\]]`, false, false},
	{`ab`, `a[]b`, false, false},
	{`a[]b`, `a[]b`, false, false},
	{`ab[`, `ab[`, false, false},
	{`ab`, `[!`, false, false},
	{`ab`, `[-`, false, false},
	{`-`, `[-]`, true, true},
	{`-`, `[a-`, false, false},
	{`-`, `[!a-`, false, false},
	{`-`, `[--A]`, true, true},
	{`5`, `[--A]`, true, true},
	{` `, `[ --]`, true, true},
	{`$`, `[ --]`, true, true},
	{`-`, `[ --]`, true, true},
	{`0`, `[ --]`, false, false},
	{`-`, `[---]`, true, true},
	{`-`, `[------]`, true, true},
	{`j`, `[a-e-n]`, false, false},
	{`-`, `[a-e-n]`, true, true},
	{`a`, `[!------]`, true, true},
	{`[`, `[]-a]`, false, false},
	{`^`, `[]-a]`, true, true},
	{`^`, `[!]-a]`, false, false},
	{`[`, `[!]-a]`, true, true},
	{`^`, `[a^bc]`, true, true},
	{`-b]`, `[a-]b]`, true, true},
	{`\`, `[\]`, false, false},
	{`\`, `[\\]`, true, true},
	{`\`, `[!\\]`, false, false},
	{`G`, `[A-\\]`, true, true},
	{`aaabbb`, `b*a`, false, false},
	{`aabcaa`, `*ba*`, false, false},
	{`,`, `[,]`, true, true},
	{`,`, `[\\,]`, true, true},
	{`\`, `[\\,]`, true, true},
	{`-`, `[,-.]`, true, true},
	{`+`, `[,-.]`, false, false},
	{`-.]`, `[,-.]`, false, false},
	{`2`, `[\1-\3]`, true, true},
	{`3`, `[\1-\3]`, true, true},
	{`4`, `[\1-\3]`, false, false},
	{`\`, `[[-\]]`, true, true},
	{`[`, `[[-\]]`, true, true},
	{`]`, `[[-\]]`, true, true},
	{`-`, `[[-\]]`, false, false},
	{`-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, true, true},
	{`-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, false, false},
	{`-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1`, `-*-*-*-*-*-*-12-*-*-*-m-*-*-*`, false, false},
	{`XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`, true, true},
	{`XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1`, `XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*`, false, false},
	{`abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt`, `**/*a*b*g*n*t`, true, true},
	{`abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz`, `**/*a*b*g*n*t`, false, false},
	{`foo`, `*/*/*`, false, false},
	{`foo/bar`, `*/*/*`, false, false},
	{`foo/bba/arr`, `*/*/*`, true, true},
	{`foo/bb/aa/rr`, `*/*/*`, false, true},
	{`foo/bb/aa/rr`, `**/**/**`, true, true},
	{`abcXdefXghi`, `*X*i`, true, true},
	{`ab/cXd/efXg/hi`, `*X*i`, false, true},
	{`ab/cXd/efXg/hi`, `*/*X*/*/*i`, true, true},
	{`ab/cXd/efXg/hi`, `**/*X*/**/*i`, true, true},
	{`foo`, `fo`, false, false},
	{`foo/bar`, `foo/bar`, true, true},
	{`foo/bar`, `foo/*`, true, true},
	{`foo/bba/arr`, `foo/*`, false, true},
	{`foo/bba/arr`, `foo/**`, true, true},
	{`foo/bba/arr`, `foo*`, false, true},
	{`foo/bba/arr`, `foo**`, false, true},
	{`foo/bba/arr`, `foo/*arr`, false, true},
	{`foo/bba/arr`, `foo/**arr`, false, true},
	{`foo/bba/arr`, `foo/*z`, false, false},
	{`foo/bba/arr`, `foo/**z`, false, false},
	{`foo/bar`, `foo?bar`, false, true},
	{`foo/bar`, `foo[/]bar`, false, true},
	{`foo/bar`, `foo[^a-z]bar`, false, true},
	{`ab/cXd/efXg/hi`, `*Xg*i`, false, true},
	{`a`, `[A-Z]`, false, false},
	{`A`, `[A-Z]`, true, true},
	{`A`, `[a-z]`, false, false},
	{`a`, `[a-z]`, true, true},
	{`a`, `[[:upper:]]`, false, false},
	{`A`, `[[:upper:]]`, true, true},
	{`A`, `[[:lower:]]`, false, false},
	{`a`, `[[:lower:]]`, true, true},
	{`A`, `[B-Za]`, false, false},
	{`a`, `[B-Za]`, true, true},
	{`A`, `[B-a]`, false, false},
	{`a`, `[B-a]`, true, true},
	{`z`, `[Z-y]`, false, false},
	{`Z`, `[Z-y]`, true, true},
}

func TestWildmatch(t *testing.T) {
	for _, tt := range wildmatchTests {
		if got := wildmatch(tt.pattern, tt.text, true); got != tt.pathname {
			t.Errorf("wildmatch(%q, %q, pathname) = %v, want %v", tt.pattern, tt.text, got, tt.pathname)
		}
		if got := wildmatch(tt.pattern, tt.text, false); got != tt.name {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.name)
		}
	}
}

func FuzzWildmatch(f *testing.F) {
	for _, tt := range wildmatchTests {
		f.Add(tt.pattern, tt.text)
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		// Whatever the pattern, matching ends without a panic, and a
		// pattern without special characters matches only itself.
		for _, pathname := range []bool{true, false} {
			got := wildmatch(pattern, text, pathname)
			if literal(pattern) && got != (pattern == text) {
				t.Fatalf("literal %q against %q: %v", pattern, text, got)
			}
		}
	})
}

func literal(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		if isGlobSpecial(pattern[i]) {
			return false
		}
	}
	return true
}
