"""Step 8, "what fits": itemised VRAM estimates per precision and mode, the model catalogue, and the
course's lessons judged for a GPU.
"""
