package kit

// Harm ranks what a failure does to a port's users, most harmful first:
// silent wrong answers, loud failures, differences that may cost answers,
// slower reads.
type Harm int

// The harms, most harmful first.
const (
	// HarmFalseNegatives: present keys read as missing, on data upstream writes or reads.
	HarmFalseNegatives Harm = iota + 1
	// HarmWrongAnswers: deleted or never-written keys found, or other values.
	HarmWrongAnswers
	// HarmCrash: the port panics.
	HarmCrash
	// HarmFails: an error instead of an answer, or an input refused.
	HarmFails
	// HarmMayLoseKeys: hash, filter or block bytes not upstream's, which
	// can miss keys when read across (the end-to-end checks measure it).
	HarmMayLoseKeys
	// HarmDamagedOnly: false negatives only on damaged or arbitrary filter data.
	HarmDamagedOnly
	// HarmSlower: filters ignored, worse or absent: more data blocks read.
	HarmSlower
	// HarmBytesOnly: another layout, which upstream reads right.
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
