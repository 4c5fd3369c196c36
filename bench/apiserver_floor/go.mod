module nubes.invalid/bench/apiserver-floor

go 1.26
