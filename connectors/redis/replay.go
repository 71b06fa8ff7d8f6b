package redis

import "fmt"

// CheckReplay: a stream is read with XRANGE after the saved entry id, so a
// replay from a committed page's bookmark emits exactly what followed it;
// lists and key scans keep no bookmark.
func (s *Source) CheckReplay() error {
	if s.st.Type != modeStream {
		return fmt.Errorf("only source_type Stream resumes from a bookmark (this one reads %s)", s.st.Type)
	}
	return nil
}
