package har

// CallURL exposes callURL to the tests.
var CallURL = callURL
