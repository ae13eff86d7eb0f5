package validate

// OpenPaths exposes the members Validate does not convert.
func (v *Validator) OpenPaths() [][]string { return v.open }

// WithoutShortcut returns a copy of v that validates open members too.
func (v *Validator) WithoutShortcut() *Validator {
	c := *v
	c.open = nil
	return &c
}

// ECMARegexp compiles a pattern with the validator's ECMA-262 engine.
var ECMARegexp = ecmaRegexp
