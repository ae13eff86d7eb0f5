package bundle

import (
	"fmt"
	"math"
)

// Seal derives every member that is a function of the rows and the discovery
// document, so that a bundle assembled from parts is coherent before it is signed:
// results.totals, assertionCount, detail.nonPass (every non-pass row with its detail
// as reason; detail is omitted when all rows pass), discovery.sha256 (when a document
// is embedded) and witnessSha256. It then sets Raw to the encoded document.
func (b *Bundle) Seal() error { return b.seal("") }

// SealWithDiscoveryDigest is Seal, taking discovery.sha256 as given rather than
// computing it again: sum must be DiscoveryDigest(*b.Discovery.Document), as
// discovery.Document.Sha256 holds it from the capture. A wrong one makes a bundle
// that no verifier accepts (mint's self-check refuses it). An empty sum is
// computed.
func (b *Bundle) SealWithDiscoveryDigest(sum string) error { return b.seal(sum) }

func (b *Bundle) seal(discoverySum string) error {
	rows := b.Results.Requirements
	b.Results.Totals = CountRows(rows)
	sum, ok := SumAssertions(rows)
	if !ok {
		return fmt.Errorf("the rows' assertions sum past 2^63−1: no assertionCount can be written")
	}
	b.AssertionCount = sum
	nonPass := make([]NonPass, 0, len(rows)-b.Results.Totals.ExecutedPass)
	for _, r := range rows {
		if r.Result != ExecutedPass {
			nonPass = append(nonPass, NonPass{ID: r.ID, Result: r.Result, Reason: r.DetailText()})
		}
	}
	b.Detail = nil
	if len(nonPass) > 0 {
		b.Detail = &Detail{NonPass: nonPass}
	}
	if b.Discovery.Document != nil {
		if discoverySum == "" {
			var err error
			if discoverySum, err = DiscoveryDigest(*b.Discovery.Document); err != nil {
				return err
			}
		}
		b.Discovery.Sha256 = discoverySum
	}
	v := b.Value()
	witness, err := WitnessDigest(v)
	if err != nil {
		return err
	}
	b.WitnessSha256 = witness
	b.Raw = v.With("witnessSha256", StringValue(witness)) // as b.Value() now writes it
	return nil
}

// SumAssertions adds the rows' assertions (a missing count is 0), reporting false
// when the sum leaves the int64 range: a wrapped total must never be written, nor
// equal a stored count.
func SumAssertions(rows []Row) (int64, bool) {
	var sum int64
	for _, r := range rows {
		n := r.AssertionCount()
		if (n > 0 && sum > math.MaxInt64-n) || (n < 0 && sum < math.MinInt64-n) {
			return 0, false
		}
		sum += n
	}
	return sum, true
}
