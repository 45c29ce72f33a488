// C face: filled in below
