// Commit subjects are plain sentences here, not conventional commits (so no type or scope
// rules): only their length is checked, at most 72 characters, so `git log --oneline` and the
// forge show them whole. Run by .githooks/commit-msg and by npm test (server/cli/check-commits.ts).
const config = {
  rules: {
    "header-max-length": [2, "always", 72],
  },
};

export default config;
