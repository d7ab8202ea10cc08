package compat

import (
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/kit"
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
			if h != kit.HarmDamagedOnly {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, kit.HarmDamagedOnly)
			}
		case strings.HasPrefix(e, "false negatives"):
			if h != kit.HarmFalseNegatives {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, kit.HarmFalseNegatives)
			}
		case strings.Contains(e, "panics"):
			if h != kit.HarmCrash {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, kit.HarmCrash)
			}
		case strings.Contains(e, "no wrong answers"):
			if h != kit.HarmSlower {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, kit.HarmSlower)
			}
		case k == kindNoTable:
			if h != kit.HarmOther {
				t.Errorf("kind %d (%q): harm %v, want %v", k, e, h, kit.HarmOther)
			}
		default:
			if h == kit.HarmOther || h == kit.HarmFalseNegatives || h == kit.HarmDamagedOnly || h == kit.HarmSlower {
				t.Errorf("kind %d (%q): harm %v, which its effect does not say", k, e, h)
			}
		}
	}
	if kindNone.harm() != kit.HarmOther {
		t.Errorf("kindNone: harm %v, want %v", kindNone.harm(), kit.HarmOther)
	}
}
