package gate

// The rules of a change (gate flips): what a pull request that flips an RFC,
// or edits committed evidence, must not do.
func init() {
	declare(func() {
		flips := []string{"flips"}
		register(
			Rule{ID: CritStatusUnreadable, Title: "every RFC the change touches has a readable Status",
				Source: "certcut: an unreadable Status is never taken as not Accepted", Gates: flips, Anchor: "gate-flips---base-ref"},
			Rule{ID: CritRegressions, Title: "no regression against the base version (bundle diff --regressions-only)",
				Source: "certcut", Gates: flips, Anchor: "gate-flips---base-ref"},
			Rule{ID: CritNewBundle, Title: "a bundle the change adds verifies with zero rejections under a trusted key",
				Source: "certcut", Gates: flips, Anchor: "gate-flips---base-ref"},
			Rule{ID: CritPolicy, Title: "the change edits no policy file the gate trusts while flipping an RFC",
				Source: "certcut: policy (keyring, tiers, anchors, TSA certificates, ledger) is read from the reviewed base", Gates: flips, Anchor: "gate-flips---base-ref"},
			Rule{ID: CritFlipsNumber, Title: "every RFC the change touches keeps the number its header states",
				Source: "certcut: a renumbering, or a number that cannot be decided, is never taken as no flip", Gates: flips, Anchor: "gate-flips---base-ref"},
			Rule{ID: CritPayloadCopy, Title: "the change repeats no committed signed payload (a payload binds one discovery.url)",
				Source: "certcut: discovery.url is not signed, so a copied payload could claim another origin", Gates: flips, Anchor: "gate-flips---base-ref"},
		)
	})
}
