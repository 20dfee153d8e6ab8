// Tests for this service land with its features.
