"""The stance dataset: assembly from gold labels, claim-level splits and AraStance-format files."""
