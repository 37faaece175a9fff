// The widget's own PBKDF2 solver, bundled by Next as a worker script of our origin: the widget's
// default build would start it from a blob: URL, which the pages' Content-Security-Policy refuses.
import "altcha/workers/pbkdf2";
