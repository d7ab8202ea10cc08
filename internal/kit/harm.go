package kit

// Harm ranks what a failure does to a port's users, the most harmful
// first: silent wrong answers before loud failures, loud failures before
// differences that only may cost answers, and those before slower reads.
// A report that orders findings across ports sorts by it.
type Harm int

// The harms, most harmful first.
const (
	// HarmFalseNegatives: present keys read as missing, measured on data
	// upstream writes or reads (the data is there, Get says it is not).
	HarmFalseNegatives Harm = iota + 1
	// HarmWrongAnswers: other wrong answers: keys upstream deleted or
	// never wrote found, or other values returned.
	HarmWrongAnswers
	// HarmCrash: the port panics.
	HarmCrash
	// HarmFails: an error instead of an answer: a database or table that
	// cannot be opened, read or written, an input refused.
	HarmFails
	// HarmMayLoseKeys: a hash, filter or filter block whose bytes are not
	// upstream's: reading each other's filters can miss keys, depending
	// on the difference (the end-to-end checks measure whether it does).
	HarmMayLoseKeys
	// HarmDamagedOnly: false negatives on damaged or arbitrary filter data
	// only, which upstream never writes.
	HarmDamagedOnly
	// HarmSlower: no wrong answers, but filters ignored, worse or absent:
	// more data blocks read.
	HarmSlower
	// HarmBytesOnly: bytes laid out otherwise than upstream's, which
	// upstream reads right: no wrong answers, nothing slower.
	HarmBytesOnly
	// HarmOther: none of the above (the kit could not check the case).
	HarmOther
)

// String names h in a few words.
func (h Harm) String() string {
	switch h {
	case HarmFalseNegatives:
		return "false negatives"
	case HarmWrongAnswers:
		return "wrong answers"
	case HarmCrash:
		return "crash"
	case HarmFails:
		return "errors"
	case HarmMayLoseKeys:
		return "bytes differ"
	case HarmDamagedOnly:
		return "false negatives on damaged data"
	case HarmSlower:
		return "slower"
	case HarmBytesOnly:
		return "harmless layout"
	}
	return "other"
}
