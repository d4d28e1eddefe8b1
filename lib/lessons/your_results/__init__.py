"""Your results: uploaded packs compared with the shipped ones."""
