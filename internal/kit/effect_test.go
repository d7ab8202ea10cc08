package kit

import (
	"strings"
	"testing"
)

// TestHarmFollowsEffect: each kind's harm says what its effect says: the
// kinds whose effect is false negatives on data upstream writes rank
// first, the ones on damaged data only as such, and every kind but the
// kit's own "nothing to check" has a harm.
func TestHarmFollowsEffect(t *testing.T) {
	for k := kindNone + 1; k < numKinds; k++ {
		e, h := k.effect(), k.harm()
		switch {
		case strings.HasPrefix(e, "false negatives on damaged"):
			if h != HarmDamagedOnly {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmDamagedOnly)
			}
		case strings.HasPrefix(e, "false negatives"):
			if h != HarmFalseNegatives {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmFalseNegatives)
			}
		case strings.Contains(e, "panics"):
			if h != HarmCrash {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmCrash)
			}
		case strings.Contains(e, "laid out otherwise") && strings.Contains(e, "no wrong answers"):
			if h != HarmBytesOnly {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmBytesOnly)
			}
		case strings.Contains(e, "no wrong answers"):
			if h != HarmSlower {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmSlower)
			}
		case k == kindNoTable:
			if h != HarmOther {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, HarmOther)
			}
		default:
			if h == HarmOther || h == HarmFalseNegatives || h == HarmDamagedOnly || h == HarmSlower {
				t.Errorf("kind %d (%q): harm %v, which its effect does not say", k, e, h)
			}
		}
	}
	if kindNone.harm() != HarmOther {
		t.Errorf("kindNone: harm %v, want %v", kindNone.harm(), HarmOther)
	}
}
