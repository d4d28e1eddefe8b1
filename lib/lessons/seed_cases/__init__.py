"""Seed cases: seeds 001/002/004 rebuilt, their cases (view), loss curves (curves) and screen (screen)."""
